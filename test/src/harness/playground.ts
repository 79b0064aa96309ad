import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from './eventually';
import { seedCompany } from './seed';
import { call } from './testApp';
import type { TestDatabase } from './testDatabase';
import { freePort, runWalletdAsync, spawnWalletd, type WalletdProcess } from './walletdProcess';

/**
 * The README's playground for one local chain: `walletd serve` with `devnet.chains` set (and the
 * chain's plugin), a wallet and an address on `<chain>/<network>`, `walletd dev fund` for the coin
 * and the token, both deposits confirmed through the API. Returns the balances the API shows.
 */
export async function playgroundLoop(
  t: TestDatabase,
  o: { devnet: string; plugin: string; chain: string; network: string; coin: string; token?: string },
): Promise<{
  balances: Record<string, string>;
  proc: WalletdProcess;
  log: string;
  dataDir: string;
  /** What a restart of the same service needs. */
  config: string;
  env: Record<string, string>;
  walletId: number;
  address: string;
  /** The API of this service (and of a restart on the same port), as the seeded company's root key. */
  api: (method: string, path: string, body?: unknown) => ReturnType<typeof call>;
}> {
  const dir = mkdtempSync(join(tmpdir(), `walletd-play-${o.devnet}-`));
  const config = join(dir, 'walletd.json');
  writeFileSync(
    config,
    JSON.stringify({
      bootstrap: false,
      dataDir: join(dir, '.walletd'),
      plugins: [...new Set(['@walletd/plugin-evm', '@walletd/plugin-utxo', o.plugin])],
      devnet: { chains: [o.devnet], ports: { [o.devnet]: await freePort() } },
    }),
  );
  const port = await freePort();
  const env = { DATABASE_URL: t.url, WALLETD_MASTER_KEY: 'ab'.repeat(32), PORT: String(port), HOST: '127.0.0.1' };
  const proc = spawnWalletd(['serve', '--config', config, '--roles', 'api,indexer'], env);
  let last: unknown = null;
  try {
    await proc.waitFor(/API listening/, 180_000);
    const s = await seedCompany(t.db, 'paid', `Playground ${o.devnet}`);
    const api = (method: string, path: string, body?: unknown) =>
      call(`http://127.0.0.1:${port}`, method, `/v1${path}`, { key: s.rootKey, body });
    const wallet = await api('POST', '/wallets', { name: `play-${o.devnet}`, chain: o.chain, network: o.network });
    if (wallet.status !== 201) throw new Error(`POST /wallets: ${wallet.status} ${JSON.stringify(wallet.body)}`);
    const address = (await api('POST', `/wallets/${wallet.body.id}/addresses`)).body.address as string;
    const fund = async (amount: string, token?: string) => {
      const args = ['dev', 'fund', '--config', config, '--chain', o.devnet, '--address', address, '--amount', amount];
      const r = await runWalletdAsync(token ? [...args, '--token', token] : args, env);
      if (r.status !== 0) throw new Error(`walletd dev fund: ${r.stderr}`);
    };
    await fund('2');
    if (o.token) await fund('7.5', o.token);
    const want = o.token ? 2 : 1;
    const got = await eventually(
      async () => {
        last = (await api('GET', `/wallets/${wallet.body.id}/balances`)).body.balances;
        return last as { asset: { symbol: string }; confirmed: string }[];
      },
      (b) => b.filter((x) => x.confirmed !== '0').length === want,
      45_000,
      500, // under the API's per-IP rate limit
    );
    return {
      balances: Object.fromEntries(got.map((b) => [b.asset.symbol, b.confirmed])),
      proc,
      log: proc.stderr(),
      dataDir: join(dir, '.walletd'),
      config,
      env,
      walletId: wallet.body.id as number,
      address,
      api,
    };
  } catch (e) {
    proc.child.kill('SIGTERM');
    await proc.exited;
    throw new Error(
      `${(e as Error).message}\n--- last balances: ${JSON.stringify(last)}\n--- walletd stderr ---\n${proc
        .stderr()
        .split('\n')
        .filter((l) => !l.includes('request completed'))
        .join('\n')
        .slice(-6000)}`,
    );
  }
}
