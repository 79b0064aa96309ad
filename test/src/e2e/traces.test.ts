import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Anvil,
  type OtlpReceiver,
  type ReceivedSpan,
  type Seeded,
  type TestDatabase,
  type TestReceiver,
  type WalletdProcess,
  call,
  createTestDatabase,
  eventually,
  freePort,
  seedCompany,
  serveWithConfig,
  startAnvil,
  startOtlpReceiver,
  startReceiver,
} from '@walletd/test-harness';

// Preloaded into `walletd serve` (NODE_OPTIONS): at exit, writes which OpenTelemetry modules it loaded.
const dir = mkdtempSync(join(tmpdir(), 'walletd-traces-'));
const preload = join(dir, 'loaded.js');
writeFileSync(
  preload,
  `if (require('node:worker_threads').isMainThread) process.on('exit', () => require('node:fs').writeFileSync(process.env.WALLETD_TEST_LOADED,
     JSON.stringify(Object.keys(require.cache).filter((k) => k.includes('@opentelemetry')))));`,
);
// Both processes open the same database: the same master key.
const masterKey = randomBytes(32).toString('hex');
const loadedBy = (name: string) => ({
  WALLETD_MASTER_KEY: masterKey,
  NODE_OPTIONS: `--require ${preload}`,
  WALLETD_TEST_LOADED: join(dir, `${name}.json`),
});
const readLoaded = (name: string) => JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as string[];
const sdkModules = (paths: string[]) =>
  [...new Set(paths.map((p) => /@opentelemetry\/([^/]+)/.exec(p)?.[1]).filter((m): m is string => m !== undefined && m !== 'api'))].sort();

const chainConfig = (anvil: Anvil) => ({
  bootstrap: false,
  devnet: { enabled: false },
  webhooks: { allowCidrs: ['127.0.0.0/8'], pollIntervalMs: 100 },
  chains: [{ chain: 'ethereum', network: 'devnet', rpcUrl: anvil.url, confirmations: 3, startBlock: 0, pollIntervalMs: 100 }],
});

async function stop(proc: WalletdProcess | undefined): Promise<void> {
  proc?.child.kill('SIGTERM');
  await proc?.exited;
}

/**
 * Issue 48 §4: with an OTLP endpoint configured, the real `walletd serve` on anvil sends spans to
 * an OTLP/HTTP receiver in the test, and one deposit is followed from the indexer's block span to
 * the attempt that delivered its event to a real receiver; an API request's span has its route.
 * Without the endpoint, nothing of the SDK is loaded and nothing is sent.
 */
describe('traces: walletd serve sends linked spans to an OTLP endpoint, and nothing without one', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let rx: TestReceiver;
  let otlp: OtlpReceiver;
  let proc: WalletdProcess | undefined;
  let s: Seeded;

  beforeAll(async () => {
    t = await createTestDatabase();
    anvil = await startAnvil();
    rx = await startReceiver();
    otlp = await startOtlpReceiver();
    s = await seedCompany(t.db);
  });
  afterAll(async () => {
    await stop(proc);
    await rx?.close();
    await otlp?.close();
    await anvil?.stop();
    await t?.drop();
  });

  it('a deposit is traced from its block through the event recorded to the delivery attempt; the API request span names its route', async () => {
    let base: string;
    const consolePort = await freePort();
    ({ proc, base } = await serveWithConfig(t.url, chainConfig(anvil), {
      WALLETD_CONSOLE_PORT: String(consolePort),
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_SERVICE_NAME: 'walletd-traced',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      ...loadedBy('traced'),
    }));
    const api = (method: string, path: string, body?: unknown) => call(base, method, `/v1${path}`, { key: s.rootKey, body });
    const hook = await api('POST', '/webhooks', { type: 'api', config: { url: `${rx.url}/hook` }, events: ['deposit.detected'] });
    expect(hook.status).toBe(201);
    const walletId = (await api('POST', '/wallets', { name: 'hot', chain: 'ethereum', network: 'devnet' })).body.id as number;
    const address = (await api('POST', `/wallets/${walletId}/addresses`)).body.address as string;
    // An invitation link's token is in its path: the span keeps the route, never the token.
    const linkToken = randomBytes(24).toString('base64url');
    await fetch(`http://127.0.0.1:${consolePort}/console/links/${linkToken}`);
    const txHash = await anvil.send(address, 10n ** 18n);
    const receipt = await anvil.rpc<{ blockNumber: string }>('eth_getTransactionReceipt', [txHash]);
    const height = BigInt(receipt.blockNumber).toString();

    await rx.waitForRequests(1);
    const event = JSON.parse(rx.requests[0]?.rawBody as string) as { id: string; type: string; data: { txHash: string } };
    expect([event.type, event.data.txHash]).toEqual(['deposit.detected', txHash]);

    const deliveredSpan = () => otlp.spans.find((x) => x.name === 'webhook.deliver' && x.attributes['walletd.event.id'] === event.id);
    await eventually(
      async () => deliveredSpan(),
      (x) => x !== undefined,
    );
    const byId = (id: string) => otlp.spans.find((x) => x.spanId === id);
    // Spans are sent as they end, and the indexer's round may end after the delivery attempt (it
    // goes on with its confirmations while the dispatcher delivers): wait for the attempt's
    // ancestors up to the round (event recorded -> persist -> round) to have arrived.
    await eventually(
      async () => {
        const recorded = byId(deliveredSpan()?.parentSpanId ?? '');
        const persist = recorded && byId(recorded.parentSpanId);
        return persist && byId(persist.parentSpanId);
      },
      (x) => x !== undefined,
    );

    const attempt = deliveredSpan() as ReceivedSpan;
    expect(attempt.attributes).toMatchObject({
      'walletd.webhook.id': hook.body.id,
      'walletd.delivery.attempt': 1,
      'walletd.delivery.ok': true,
      'http.response.status_code': 200,
    });
    // The attempt continues the trace of the event it delivers: recorded by the write of the deposit's block.
    const recorded = byId(attempt.parentSpanId) as ReceivedSpan;
    expect(recorded.name).toBe('walletd.event.record');
    expect(recorded.traceId).toBe(attempt.traceId);
    expect(recorded.attributes['walletd.event.ids']).toContain(event.id);
    const persist = byId(recorded.parentSpanId) as ReceivedSpan;
    expect(persist.name).toBe('indexer.persist');
    const linked = persist.links.map((l) => byId(l.spanId));
    const block = linked.find((x) => x?.attributes['walletd.block.height'] === height) as ReceivedSpan;
    expect(block).toMatchObject({ name: 'indexer.block', traceId: attempt.traceId });
    expect(block.attributes).toMatchObject({ 'walletd.chain': 'ethereum', 'walletd.network': 'devnet' });
    // The block's fetch and detect are its children; the block and its write are the round's.
    const children = otlp.spans.filter((x) => x.parentSpanId === block.spanId).map((x) => x.name);
    expect(children.sort()).toEqual(['indexer.detect', 'indexer.fetch_block']);
    const round = byId(persist.parentSpanId) as ReceivedSpan;
    expect(round.name).toBe('indexer.round');
    expect(block.parentSpanId).toBe(round.spanId);
    expect(round.resource).toMatchObject({ 'service.name': 'walletd-traced', 'walletd.roles': 'api,dispatcher,indexer,console' });

    // The API request: the http instrumentation's server span, named by the route template.
    const request = otlp.spans.find((x) => x.name === 'POST /v1/wallets/:id/addresses') as ReceivedSpan;
    expect(request).toBeDefined();
    expect(request.attributes).toMatchObject({ 'http.route': '/v1/wallets/:id/addresses' });
    expect(request.kind).toBe(2); // SERVER
    // No secret travels in a span: neither the webhook's signing secret nor the API key.
    const everything = JSON.stringify(otlp.spans);
    expect(everything).not.toContain(hook.body.signingSecret);
    expect(everything).not.toContain(s.rootKey);
    expect(everything).not.toContain(linkToken);
    expect(otlp.spans.some((x) => x.attributes['url.path'] === '/console/links/:token')).toBe(true);
    expect(otlp.posts.every((p) => p.path === '/v1/traces' && p.contentType.startsWith('application/json'))).toBe(true);

    await stop(proc);
    proc = undefined;
    expect(sdkModules(readLoaded('traced'))).toEqual(
      expect.arrayContaining(['exporter-trace-otlp-http', 'instrumentation-http', 'sdk-trace']),
    );
  });

  it('without an OTLP endpoint nothing is sent and no module of the SDK is loaded', async () => {
    const before = otlp.posts.length;
    let base: string;
    ({ proc, base } = await serveWithConfig(t.url, chainConfig(anvil), {
      OTEL_EXPORTER_OTLP_ENDPOINT: undefined as unknown as string,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined as unknown as string,
      OTEL_SERVICE_NAME: 'walletd-untraced',
      ...loadedBy('untraced'),
    }));
    const api = (method: string, path: string, body?: unknown) => call(base, method, `/v1${path}`, { key: s.rootKey, body });
    const walletId = (await api('POST', '/wallets', { name: 'cold', chain: 'ethereum', network: 'devnet' })).body.id as number;
    const address = (await api('POST', `/wallets/${walletId}/addresses`)).body.address as string;
    const count = rx.requests.length;
    await anvil.send(address, 10n ** 18n);
    await rx.waitForRequests(count + 1);
    await stop(proc);
    proc = undefined;
    expect(sdkModules(readLoaded('untraced'))).toEqual([]);
    expect(otlp.posts.length).toBe(before);
  });
});
