import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Anvil,
  type Seeded,
  type TestDatabase,
  type TestReceiver,
  type WalletdProcess,
  call,
  createTestDatabase,
  eventually,
  freePort,
  seedCompany,
  spawnWalletd,
  startAnvil,
  startReceiver,
} from '@walletd/test-harness';

/** The value of one series in a Prometheus text page: `name` with every label of `labels`; NaN when absent. */
function sample(page: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of page.split('\n')) {
    const m = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = m[2] ?? '';
    if (Object.entries(labels).every(([k, v]) => have.includes(`${k}="${v}"`))) return Number(m[3]);
  }
  return Number.NaN;
}

/**
 * Issue 48 §4, the operator's metrics, read from the real `walletd serve`'s /metrics on anvil
 * around a deposit: the tip's age, block to deposit.detected, node call latency per method, the
 * outbox's oldest due delivery (no dispatcher runs here: it waits), a reconciliation drift (a
 * balance the node has and the history does not explain), and spans the OTLP endpoint refused.
 */
describe('operator metrics: each series moves on a real serve around a deposit', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let rx: TestReceiver;
  let refusing: Server;
  let proc: WalletdProcess;
  let base: string;
  let s: Seeded;
  const chain = { chain: 'ethereum', network: 'devnet' };
  const page = async () => (await call(base, 'GET', '/metrics')).text;
  const api = (method: string, path: string, body?: unknown) => call(base, method, `/v1${path}`, { key: s.rootKey, body });

  beforeAll(async () => {
    t = await createTestDatabase();
    anvil = await startAnvil();
    rx = await startReceiver();
    // An OTLP endpoint that refuses every export (400: not retried).
    refusing = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(400, { 'content-type': 'application/json' }).end('{"message":"refused"}'));
    });
    await new Promise<void>((r) => refusing.listen(0, '127.0.0.1', r));
    const file = join(mkdtempSync(join(tmpdir(), 'walletd-metrics-')), 'walletd.json');
    writeFileSync(
      file,
      JSON.stringify({
        bootstrap: false,
        devnet: { enabled: false },
        webhooks: { allowCidrs: ['127.0.0.0/8'] },
        reconciliation: { firstRunDelayMs: 0, intervalMs: 1000, confirmDelayMs: 200 },
        chains: [{ chain: 'ethereum', network: 'devnet', rpcUrl: anvil.url, confirmations: 3, startBlock: 0, pollIntervalMs: 100 }],
      }),
    );
    const port = await freePort();
    // No dispatcher role: the deposit's delivery stays due.
    proc = spawnWalletd(['serve', '--config', file, '--roles', 'api,indexer'], {
      DATABASE_URL: t.url,
      WALLETD_MASTER_KEY: randomBytes(32).toString('hex'),
      PORT: String(port),
      HOST: '127.0.0.1',
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    await proc.waitFor(/API listening/);
    base = `http://127.0.0.1:${port}`;
    s = await seedCompany(t.db);
  });
  afterAll(async () => {
    proc?.child.kill('SIGTERM');
    await proc?.exited;
    await rx?.close();
    await new Promise<void>((r) => (refusing ? refusing.close(() => r()) : r()));
    await anvil?.stop();
    await t?.drop();
  });

  it('tip age, block to detected, node calls, the oldest due delivery, a drift and failed span exports', async () => {
    expect((await api('POST', '/webhooks', { type: 'api', config: { url: `${rx.url}/hook` }, events: ['deposit.detected'] })).status).toBe(
      201,
    );
    const walletId = (await api('POST', '/wallets', { name: 'hot', chain: 'ethereum', network: 'devnet' })).body.id as number;
    const address = (await api('POST', `/wallets/${walletId}/addresses`)).body.address as string;
    const before = await page();
    expect(sample(before, 'walletd_deposit_detection_delay_seconds_count', chain)).toBeNaN();

    await anvil.send(address, 10n ** 18n);
    const after = await eventually(page, (p) => sample(p, 'walletd_deposit_events_total', { ...chain, type: 'deposit.detected' }) === 1);
    expect(sample(after, 'walletd_deposit_events_total', { ...chain, type: 'deposit.detected' })).toBe(1);
    // One deposit, one observation: its block's header time to its event, within the test's span.
    expect(sample(after, 'walletd_deposit_detection_delay_seconds_count', chain)).toBe(1);
    expect(sample(after, 'walletd_deposit_detection_delay_seconds_sum', chain)).toBeGreaterThanOrEqual(0);
    expect(sample(after, 'walletd_deposit_detection_delay_seconds_bucket', { ...chain, le: '+Inf' })).toBe(1);

    // The tip's age grows while no block comes.
    const age1 = sample(after, 'walletd_chain_tip_age_seconds', chain);
    expect(age1).toBeGreaterThanOrEqual(0);
    const later = await eventually(page, (p) => sample(p, 'walletd_chain_tip_age_seconds', chain) > age1 + 1);
    expect(sample(later, 'walletd_chain_tip_age_seconds', chain)).toBeGreaterThan(age1 + 1);

    // Node calls per method: the follower's rounds keep asking for the head; blocks were fetched.
    const heads = (p: string) => sample(p, 'walletd_node_call_duration_seconds_count', { ...chain, method: 'eth_blockNumber' });
    expect(heads(later)).toBeGreaterThan(heads(before));
    expect(sample(later, 'walletd_node_call_duration_seconds_count', { ...chain, method: 'eth_getBlockByNumber' })).toBeGreaterThan(0);
    expect(later).not.toContain(anvil.url);

    // The deposit's delivery is due and nobody sends it: the outbox's oldest due delivery ages.
    const waiting = await eventually(page, (p) => sample(p, 'walletd_webhook_oldest_due_delivery_age_seconds') > 1);
    expect(sample(waiting, 'walletd_webhook_oldest_due_delivery_age_seconds')).toBeGreaterThan(1);
    expect(sample(waiting, 'walletd_webhook_deliveries_pending')).toBe(1);

    // Spans the endpoint refused are counted.
    expect(sample(waiting, 'walletd_trace_export_failures_total')).toBeGreaterThan(0);

    // A balance the node has and no history explains: a reconciliation drift.
    expect(sample(waiting, 'walletd_reconciliation_drifts', chain)).toBe(0);
    const other = (await api('POST', `/wallets/${walletId}/addresses`)).body.address as string;
    await anvil.rpc('anvil_setBalance', [other, '0x9b6e64a8ec60000']);
    const drifted = await eventually(page, (p) => sample(p, 'walletd_reconciliation_drifts', chain) === 1, 30_000);
    expect(sample(drifted, 'walletd_reconciliation_drifts', chain)).toBe(1);
  });
});
