import type { ChainSettings } from '@walletd/core';
import { loadPlugins } from '@walletd/server';
import { type Seeded, type TestApp, type TestDatabase, call, createTestDatabase, seedCompany, startTestApp } from '@walletd/test-harness';

/**
 * Issue 28, section 3: a destination the chain cannot pay, or that burns what it is paid, is
 * refused the same way by prepare and by a withdrawal request (one check: checkedIntent), so a
 * request never waits for approvals only to fail at prepare. The shipped plugins, with nodes that
 * do not answer: every refusal here comes before any node call.
 */
describe('destinations refused alike by prepare and by a withdrawal request', () => {
  let t: TestDatabase;
  let app: TestApp;
  let s: Seeded;
  const wallets: Record<string, { id: number; address: string }> = {};
  const usdc = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
  const api = (method: string, path: string, body?: unknown) => call(app.url, method, `/v1${path}`, { key: s.rootKey, body });
  let n = 0;
  /** The same intent as a prepare and as a request: [prepare, request]. */
  const both = async (chain: string, body: Record<string, unknown>) => {
    const w = wallets[chain] as { id: number };
    const prepared = await api('POST', `/wallets/${w.id}/withdrawals`, { idempotencyKey: `p${++n}`, ...body });
    const requested = await api('POST', '/withdrawal-requests', { walletId: w.id, idempotencyKey: `r${n}`, ...body });
    return [prepared, requested] as const;
  };
  const refusedAlike = async (chain: string, body: Record<string, unknown>, code: string, message: RegExp) => {
    const [prepared, requested] = await both(chain, body);
    expect([prepared.status, prepared.body.code]).toEqual([400, code]);
    expect([requested.status, requested.body.code]).toEqual([400, code]);
    expect(prepared.body.message).toMatch(message);
    expect(requested.body.message).toBe(prepared.body.message);
  };

  beforeAll(async () => {
    t = await createTestDatabase();
    const down = 'http://127.0.0.1:9';
    const chains: ChainSettings[] = [
      { chain: 'xrp', network: 'devnet', rpcUrl: 'ws://127.0.0.1:9' },
      { chain: 'tron', network: 'devnet', rpcUrl: down },
      { chain: 'ton', network: 'localnet', rpcUrl: down },
      { chain: 'ethereum', network: 'devnet', rpcUrl: down, tokens: [{ symbol: 'USDC', decimals: 6, contract: usdc }] },
      { chain: 'solana', network: 'localnet', rpcUrl: down },
      { chain: 'bitcoin', network: 'regtest', rpcUrl: down },
      { chain: 'dogecoin', network: 'regtest', rpcUrl: down },
    ];
    const plugins = loadPlugins(['evm', 'utxo', 'xrp', 'tron', 'ton', 'solana'].map((p) => `@walletd/plugin-${p}`));
    app = await startTestApp(t.db, { chains, rateLimit: { writesPerKeyPerMinute: 10_000 } }, undefined, plugins);
    s = await seedCompany(t.db);
    for (const c of chains) {
      const id = (await api('POST', '/wallets', { name: c.chain, chain: c.chain, network: c.network })).body.id;
      const address = (await api('POST', `/wallets/${id}/addresses`)).body.address as string;
      wallets[c.chain] = { id, address };
    }
  });
  afterAll(async () => {
    await app.close();
    await t.drop();
  });

  it('XRP: a tag in the address that disagrees with destinationTag, and the wallet paying its own account', async () => {
    const other = 'rNxp4h8apvRis6mJf9Sh8C6iRxfrDWN7AV';
    // The X-address of `other` with tag 5 (test flag: devnet).
    const xAddress = 'TVwX7SZf4dm48kxt1EQ7kb6UHrAu5V5hkrJxTAxwfviHe8V';
    const tagMismatch = /the address carries destination tag 5 but destinationTag is 6/;
    await refusedAlike('xrp', { asset: 'XRP', toAddress: xAddress, amount: '20', destinationTag: 6 }, 'validation_failed', tagMismatch);
    await refusedAlike('xrp', { asset: 'XRP', toAddress: `${other}:5`, amount: '20', destinationTag: 6 }, 'validation_failed', tagMismatch);
    const deposit = (wallets.xrp as { address: string }).address;
    const account = deposit.split(':')[0] as string;
    for (const own of [account, `${account}:7`, deposit])
      await refusedAlike('xrp', { asset: 'XRP', toAddress: own, amount: '20' }, 'validation_failed', /cannot pay its own sender/);
    // What agrees is a request (no node needed until approval).
    const [, fine] = await both('xrp', { asset: 'XRP', toAddress: xAddress, amount: '20', destinationTag: 5 });
    expect(fine.status).toBe(201);
  });

  it('XRP black holes: no key controls them', async () => {
    for (const hole of [
      'rrrrrrrrrrrrrrrrrrrrrhoLvTp',
      'rrrrrrrrrrrrrrrrrrrrBZbvji',
      'rrrrrrrrrrrrrrrrrNAMEtxvNvQ',
      'rrrrrrrrrrrrrrrrrrrn5RM1rHd',
    ])
      await refusedAlike('xrp', { asset: 'XRP', toAddress: hole, amount: '20' }, 'invalid_address', /no key controls it/);
  });

  it('Tron and TON: a wallet paying its only address (the one that would pay)', async () => {
    const tron = wallets.tron as { address: string };
    await refusedAlike(
      'tron',
      { asset: 'TRX', toAddress: tron.address, amount: '1' },
      'validation_failed',
      /TRX transfer to its own sender/,
    );
    await refusedAlike(
      'tron',
      { asset: 'TRX', toAddress: 'T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb', amount: '1' },
      'invalid_address',
      /the zero address/,
    );
    const ton = wallets.ton as { address: string };
    await refusedAlike('ton', { asset: 'TON', toAddress: ton.address, amount: '1' }, 'validation_failed', /cannot pay its own source/);
  });

  it('TON: workchain 1 does not exist (refused); the masterchain does (a request is taken)', async () => {
    const hash = 'ab'.repeat(32);
    await refusedAlike(
      'ton',
      { asset: 'TON', toAddress: `1:${hash}`, amount: '1' },
      'invalid_address',
      /workchain 1, which does not exist/,
    );
    const [, master] = await both('ton', { asset: 'TON', toAddress: `-1:${hash}`, amount: '1' });
    expect(master.status).toBe(201);
  });

  it('EVM: the zero address, a precompile, and a known token contract', async () => {
    await refusedAlike(
      'ethereum',
      { asset: 'ETH', toAddress: '0x0000000000000000000000000000000000000000', amount: '1' },
      'invalid_address',
      /the zero address/,
    );
    await refusedAlike(
      'ethereum',
      { asset: 'USDC', toAddress: '0x0000000000000000000000000000000000000001', amount: '1' },
      'invalid_address',
      /precompiled contracts/,
    );
    for (const asset of ['ETH', 'USDC'])
      await refusedAlike('ethereum', { asset, toAddress: usdc.toLowerCase(), amount: '1' }, 'invalid_address', /is the contract of USDC/);
  });

  it('Solana: the incinerator and programs', async () => {
    for (const to of [
      '1nc1nerator11111111111111111111111111111111',
      '11111111111111111111111111111111',
      'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
    ])
      await refusedAlike('solana', { asset: 'SOL', toAddress: to, amount: '1' }, 'invalid_address', /no key controls it/);
  });

  it('UTXO: dogecoin bech32 and bitcoin witness v2 are refused (the admin CLI refuses them in policies: adminCliChecks); taproot is taken', async () => {
    const dogeBech32 = 'dcrt1qqurswpc8qurswpc8qurswpc8qurswpc8g264cg';
    await refusedAlike(
      'dogecoin',
      { asset: 'DOGE', toAddress: dogeBech32, amount: '10' },
      'invalid_address',
      /not a valid dogecoin regtest/,
    );
    await refusedAlike(
      'bitcoin',
      { asset: 'BTC', toAddress: 'bcrt1zqurswpc8qurswpc8qurswpc8qufpzj6p', amount: '0.1' },
      'invalid_address',
      /is not a valid bitcoin regtest address/,
    );
    const taproot = 'bcrt1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqc8gma6';
    const [, request] = await both('bitcoin', { asset: 'BTC', toAddress: taproot, amount: '0.1' });
    expect(request.status).toBe(201);
    expect(request.body.toAddress).toBe(taproot);
  });

  it('an address with blanks around it is refused by name', async () => {
    const other = 'rNxp4h8apvRis6mJf9Sh8C6iRxfrDWN7AV';
    for (const padded of [` ${other}`, `${other}\u00a0`, `${other}\n`])
      await refusedAlike('xrp', { asset: 'XRP', toAddress: padded, amount: '20' }, 'invalid_address', /has blanks around it/);
  });
});
