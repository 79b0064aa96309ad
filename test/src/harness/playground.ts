import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeWithLitecoind } from './describeWithLitecoind';
import { eventually } from './eventually';
import { startReceiver, type TestReceiver } from './receiver';
import { signatureChecks } from './signedDelivery';
import { seedCompany } from './seed';
import { call } from './testApp';
import { createTestDatabase, type TestDatabase } from './testDatabase';
import { freePort, runWalletdAsync, spawnWalletd, type WalletdProcess } from './walletdProcess';

/** One event a playground's receiver got: its type, the asset's symbol, the amount, the withdrawal's id if any. */
export interface PlaygroundEvent {
  type: string;
  symbol: string;
  amount: string;
  withdrawalId?: number;
  txHash: string;
}

/**
 * The devnet guide's playground for one local chain (docs/guide/devnet.md): `walletd serve` with `devnet.chains` set (and the
 * chain's plugin) and a webhook for every event to a real HTTP receiver, a wallet and an address
 * on `<chain>/<network>`, `walletd dev fund` for the coin and the token, both deposits confirmed
 * through the API, then a withdrawal of `payout` of the coin (default 0.5) to a second wallet's
 * address, prepared and broadcast, until walletd reports it confirmed. Returns the balances the
 * API showed once the deposits were confirmed, the withdrawal, and the receiver (the caller closes it).
 */
export type PlaygroundOptions = {
  devnet: string;
  plugin: string;
  chain: string;
  network: string;
  coin: string;
  token?: string;
  payout?: string;
  /** More local chains run beside `devnet` (they get wallets of their own from the caller). */
  alsoDevnets?: string[];
  /** Config keys beside the playground's (e.g. `masterKey`), and env beside its own (e.g. the token's PIN). */
  config?: Record<string, unknown>;
  env?: Record<string, string>;
};
export type PlaygroundRun = Awaited<ReturnType<typeof playgroundLoop>>;

export async function playgroundLoop(
  t: TestDatabase,
  o: PlaygroundOptions,
): Promise<{
  balances: Record<string, string>;
  /** The withdrawal out, as GET /v1/withdrawals/:id answered once confirmed. */
  withdrawal: { id: number; status: string; txHash: string; toAddress: string; amount: string; fee: string };
  receiver: TestReceiver;
  /** The webhook's signing secret. */
  secret: string;
  /** What the receiver got so far, in order of arrival. */
  events: () => PlaygroundEvent[];
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
      devnet: { chains: [o.devnet, ...(o.alsoDevnets ?? [])], ports: await devnetPorts([o.devnet, ...(o.alsoDevnets ?? [])]) },
      ...o.config,
    }),
  );
  const port = await freePort();
  const receiver = await startReceiver();
  const env = {
    DATABASE_URL: t.url,
    WALLETD_MASTER_KEY: 'ab'.repeat(32),
    PORT: String(port),
    HOST: '127.0.0.1',
    WALLETD_WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8', // the README's setting for a local receiver
    ...o.env,
  };
  const events = () =>
    receiver.requests.map((r) => {
      const e = JSON.parse(r.rawBody) as {
        type: string;
        data: { asset: { symbol: string }; amount: string; withdrawalId?: number; txHash: string };
      };
      return { type: e.type, symbol: e.data.asset.symbol, amount: e.data.amount, withdrawalId: e.data.withdrawalId, txHash: e.data.txHash };
    });
  const proc = spawnWalletd(['serve', '--config', config, '--roles', 'api,indexer,dispatcher'], env);
  let last: unknown = null;
  try {
    await proc.waitFor(/API listening/, 180_000);
    const s = await seedCompany(t.db, 'paid', `Playground ${o.devnet}`);
    const api = (method: string, path: string, body?: unknown) =>
      call(`http://127.0.0.1:${port}`, method, `/v1${path}`, { key: s.rootKey, body });
    const hook = await api('POST', '/webhooks', { type: 'api', config: { url: `${receiver.url}/hook` }, events: ['*'] });
    if (hook.status !== 201) throw new Error(`POST /webhooks: ${hook.status} ${JSON.stringify(hook.body)}`);
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
    const balances = Object.fromEntries(got.map((b) => [b.asset.symbol, b.confirmed]));
    const withdrawal = await payOut(api, o, wallet.body.id as number, o.payout ?? '0.5');
    return {
      balances,
      withdrawal,
      receiver,
      secret: hook.body.signingSecret as string,
      events,
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
    await receiver.close();
    throw new Error(
      `${(e as Error).message}\n--- last balances: ${JSON.stringify(last)}\n--- walletd stderr ---\n${proc
        .stderr()
        .split('\n')
        .filter((l) => !l.includes('request completed'))
        .join('\n')
        .slice(-6000)}\n--- receiver got: ${JSON.stringify(events())}`,
    );
  }
}

async function devnetPorts(names: string[]): Promise<Record<string, number>> {
  const ports: Record<string, number> = {};
  for (const n of names) ports[n] = await freePort();
  return ports;
}

type Api = (method: string, path: string, body?: unknown) => ReturnType<typeof call>;

/**
 * A withdrawal of `amount` of the coin out of the playground's first wallet to a second wallet's
 * address, as the README's devnet loop does it: prepare, then sign and broadcast in one call; resolves once
 * walletd reports it confirmed (the engine put it in a block that reached the chain's finality).
 */
async function payOut(api: Api, o: { devnet: string; chain: string; network: string; coin: string }, from: number, amount: string) {
  const other = await api('POST', '/wallets', { name: `play-${o.devnet}-out`, chain: o.chain, network: o.network });
  const toAddress = (await api('POST', `/wallets/${other.body.id}/addresses`)).body.address as string;
  const prepared = await api('POST', `/wallets/${from}/withdrawals`, {
    asset: o.coin,
    toAddress,
    amount,
    idempotencyKey: `play-${o.devnet}-out`,
  });
  if (prepared.status !== 201) throw new Error(`POST /withdrawals: ${prepared.status} ${JSON.stringify(prepared.body)}`);
  const id = prepared.body.id as number;
  const sent = await api('POST', `/withdrawals/${id}/broadcast`);
  if (sent.status !== 200) throw new Error(`POST /withdrawals/${id}/broadcast: ${sent.status} ${JSON.stringify(sent.body)}`);
  const done = await eventually(
    async () => (await api('GET', `/withdrawals/${id}`)).body,
    (w) => w.status === 'confirmed' || w.status === 'rejected' || w.status === 'cancelled',
    60_000,
    500,
  );
  if (done.status !== 'confirmed') throw new Error(`withdrawal ${id} ended ${done.status}: ${JSON.stringify(done)}`);
  return {
    id,
    status: done.status as string,
    txHash: done.txHash as string,
    toAddress,
    amount: done.amount as string,
    fee: done.fee.amount as string,
  };
}

/**
 * What the playground's receiver got once it has every event of `expected` (deliveries run
 * behind the API): each event as "type symbol amount", deduplicated and sorted, after checking
 * every delivery's signature with the webhook's secret.
 */
export async function playgroundEvents(
  r: { receiver: TestReceiver; secret: string; events: () => PlaygroundEvent[] },
  expected: string[],
): Promise<string[]> {
  const summary = () => [...new Set(r.events().map((e) => `${e.type} ${e.symbol} ${e.amount}`))].sort();
  await eventually(
    async () => summary(),
    (got) => expected.every((e) => got.includes(e)),
    30_000,
    200,
  ).catch(() => undefined); // the caller's toEqual shows what is missing
  for (const req of r.receiver.requests) {
    const checks = signatureChecks(req, r.secret);
    if (!checks.serviceSignature || !checks.standardWebhooks) throw new Error(`a delivery failed its signature check: ${req.rawBody}`);
  }
  return summary();
}

/**
 * The events a playground loop causes: each deposit detected then confirmed (the withdrawal out
 * is a deposit into the second wallet too), the withdrawal broadcast then confirmed.
 */
export const playgroundExpected = (coin: string, token?: string, payout = '0.5'): string[] =>
  [
    ...['2', payout].flatMap((a) => [`deposit.detected ${coin} ${a}`, `deposit.confirmed ${coin} ${a}`]),
    ...(token ? [`deposit.detected ${token} 7.5`, `deposit.confirmed ${token} 7.5`] : []),
    `withdrawal.broadcast ${coin} ${payout}`,
    `withdrawal.confirmed ${coin} ${payout}`,
  ].sort();

/** One chain's playground suite: what differs from the others (see describePlayground). */
export interface PlaygroundSuite {
  describe: string;
  it: string;
  loop: PlaygroundOptions;
  /** The dogecoin and bitcoin playgrounds run litecoind: skipped (visibly) without it. */
  litecoind?: boolean;
  timeoutMs?: number;
  /**
   * The chain's own checks once the common ones passed, while the service runs. `stop()` ends the
   * service (exit 0 asserted); a check may call it to look at what stopped with it, and `adopt` a
   * process it starts so the suite ends it. The service is stopped after, if still running.
   */
  chainChecks?: (r: PlaygroundRun, service: { stop(): Promise<void>; adopt(p: WalletdProcess): void }) => Promise<void>;
}

/**
 * A playground of docs/guide/devnet.md as a suite: the loop (playgroundLoop), then what every chain shows: the
 * balances (2 of the coin, 7.5 of the token), the withdrawal out confirmed, every event signed at
 * the receiver, the local chain's line in the log, and the service exiting 0 on SIGTERM.
 */
export function describePlayground(c: PlaygroundSuite): void {
  (c.litecoind ? describeWithLitecoind : describe)(c.describe, () => {
    let t: TestDatabase;
    let proc: WalletdProcess | undefined;
    let rx: TestReceiver | undefined;
    beforeAll(async () => {
      t = await createTestDatabase();
    });
    afterAll(async () => {
      proc?.child.kill('SIGTERM');
      await proc?.exited;
      await rx?.close();
      await t?.drop();
    });

    it(
      c.it,
      async () => {
        const { coin, token, chain, network, devnet } = c.loop;
        const r = await playgroundLoop(t, c.loop);
        proc = r.proc;
        rx = r.receiver;
        expect(r.balances).toEqual(token ? { [coin]: '2', [token]: '7.5' } : { [coin]: '2' });
        expect(r.withdrawal).toMatchObject({ status: 'confirmed', amount: '0.5' });
        const expected = playgroundExpected(coin, token);
        expect(await playgroundEvents(r, expected)).toEqual(expected);
        expect(r.log).toContain(`local chain ${chain}/${network} running (${devnet})`);
        const stop = async () => {
          proc?.child.kill('SIGTERM');
          expect(await proc?.exited).toBe(0);
          proc = undefined;
        };
        await c.chainChecks?.(r, { stop, adopt: (p) => (proc = p) });
        if (proc === r.proc) await stop();
      },
      c.timeoutMs ?? 240_000,
    );
  });
}
