import type { ChainSettings } from '@walletd/core';
import {
  SHIPPED_CHAINS,
  call,
  createTestDatabase,
  seedCompany,
  startTestApp,
  type TestApp,
  type TestDatabase,
} from '@walletd/test-harness';
import { loadPlugins } from '../platform/plugins';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.drop());

/** A node URL per chain that its plugin's reader accepts; no test here reaches it. */
const nodeUrl = (chain: string) => (chain === 'xrp' ? 'ws://127.0.0.1:9' : 'http://127.0.0.1:9');
const follow = (chain: string, network: string): ChainSettings => ({ chain, network, rpcUrl: nodeUrl(chain) });

async function withApp<T>(over: Parameters<typeof startTestApp>[1], fn: (app: TestApp) => Promise<T>, plugins?: string[]): Promise<T> {
  const app = await startTestApp(t.db, over, undefined, plugins ? loadPlugins(plugins) : undefined);
  try {
    return await fn(app);
  } finally {
    await app.close();
  }
}

const mkWallet = async (app: TestApp, key: string, chain: string, network: string) => {
  const r = await call(app.url, 'POST', '/v1/wallets', { key, body: { name: `${chain} ${network}`, chain, network } });
  expect(r.status).toBe(201);
  return r.body.id as number;
};

/** What an address request may have written: rows of the wallet and the next HD index. */
const written = async (walletId: number) => ({
  rows: await t.db('addresses').where({ wallet_id: walletId }).select('kind', 'address'),
  nextIndex: (await t.db('wallets').where({ id: walletId }).first('next_address_index')).next_address_index,
});

describe('POST /v1/wallets/:id/addresses: every loaded chain, only where followed', () => {
  it('a default configuration loads all seven plugins: wallets and addresses on all eleven chains it follows', async () => {
    const chains = SHIPPED_CHAINS.map((c) => follow(c, 'mainnet'));
    await withApp({ chains }, async (app) => {
      const s = await seedCompany(t.db);
      for (const chain of SHIPPED_CHAINS) {
        const id = await mkWallet(app, s.rootKey, chain, 'mainnet');
        const r = await call(app.url, 'POST', `/v1/wallets/${id}/addresses`, { key: s.rootKey, body: {} });
        expect({ chain, status: r.status, body: r.body.chain }).toEqual({ chain, status: 201, body: chain });
      }
    });
  });

  it('refuses a deposit address on a network no chains[] entry follows (409, how to follow it), writing nothing', async () => {
    await withApp({ chains: [follow('tron', 'mainnet')] }, async (app) => {
      const s = await seedCompany(t.db);
      for (const [chain, network] of [
        ['ethereum', 'mainnet'],
        ['bitcoin', 'mainnet'],
        ['tron', 'nile'],
        ['xrp', 'mainnet'],
      ] as const) {
        const id = await mkWallet(app, s.rootKey, chain, network);
        const before = await written(id);
        const r = await call(app.url, 'POST', `/v1/wallets/${id}/addresses`, { key: s.rootKey, body: { label: 'customer 1' } });
        expect(r.status).toBe(409);
        expect(r.body).toEqual({
          statusCode: 409,
          error: 'Conflict',
          code: 'chain_not_followed',
          message: `walletd follows no ${chain}/${network} node: add a chains[] entry with chain "${chain}", network "${network}" and its node URL (docs/guide/chains.md) to issue deposit addresses whose deposits will be seen`,
        });
        expect(await written(id)).toEqual(before);
      }
      // The followed one is issued, from index 0: the refusals above took none.
      const tron = await mkWallet(app, s.rootKey, 'tron', 'mainnet');
      const ok = await call(app.url, 'POST', `/v1/wallets/${tron}/addresses`, { key: s.rootKey, body: {} });
      expect(ok.status).toBe(201);
      expect(ok.body).toMatchObject({ chain: 'tron', network: 'mainnet', index: 0 });
    });
  });

  it('with no chains[] the devnet is followed (an API process without the indexer reads it from the config alone)', async () => {
    const s = await seedCompany(t.db);
    const issue = (app: TestApp, id: number) => call(app.url, 'POST', `/v1/wallets/${id}/addresses`, { key: s.rootKey, body: {} });
    await withApp({ chains: [], devnet: { enabled: true, port: 9 } }, async (app) => {
      expect((await issue(app, await mkWallet(app, s.rootKey, 'ethereum', 'devnet'))).status).toBe(201);
      expect((await issue(app, await mkWallet(app, s.rootKey, 'ethereum', 'sepolia'))).body.code).toBe('chain_not_followed');
    });
    await withApp({ chains: [], devnet: { enabled: false, port: 9 } }, async (app) => {
      expect((await issue(app, await mkWallet(app, s.rootKey, 'ethereum', 'devnet'))).body.code).toBe('chain_not_followed');
    });
  });

  it('a chain whose plugin `plugins` narrows out is a 422 naming the package to add, for addresses and withdrawals', async () => {
    const narrowed = ['@walletd/plugin-evm', '@walletd/plugin-utxo'];
    const s = await seedCompany(t.db);
    // The wallet was made while tron's plugin was loaded; a new one is refused now (422, naming it).
    let id = 0;
    await withApp({ chains: [follow('tron', 'mainnet')] }, async (app) => {
      id = await mkWallet(app, s.rootKey, 'tron', 'mainnet');
    });
    await withApp(
      { plugins: narrowed, chains: [follow('tron', 'mainnet')] },
      async (app) => {
        const fresh = await call(app.url, 'POST', '/v1/wallets', {
          key: s.rootKey,
          body: { name: 'n', chain: 'tron', network: 'mainnet' },
        });
        expect(fresh.status).toBe(422);
        expect(fresh.body).toMatchObject({ code: 'chain_not_supported' });
        expect(fresh.body.message).toContain('tron is served by @walletd/plugin-tron: add it to "plugins" in the config');
        const before = await written(id);
        const address = await call(app.url, 'POST', `/v1/wallets/${id}/addresses`, { key: s.rootKey, body: {} });
        expect(address.status).toBe(422);
        expect(address.body.message).toBe(
          'addresses on tron: tron is served by @walletd/plugin-tron, which this walletd does not load: add it to "plugins" in the config (docs/operate/configuration.md)',
        );
        expect(await written(id)).toEqual(before);
        const withdrawal = await call(app.url, 'POST', `/v1/wallets/${id}/withdrawals`, {
          key: s.rootKey,
          body: { asset: 'TRX', toAddress: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', amount: '1', idempotencyKey: 'narrowed-1' },
        });
        expect(withdrawal.status).toBe(422);
        expect(withdrawal.body.message).toContain('tron is served by @walletd/plugin-tron, which this walletd does not load');
      },
      narrowed,
    );
  });
});
