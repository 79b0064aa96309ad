import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { MasterKey, createLogger, createMetrics } from '@walletd/core';
import { type TestDatabase, call, createTestDatabase, seedCompany, testConfig } from '@walletd/test-harness';
import { createApp, loadPlugins } from '@walletd/server';
import { listen } from '../cli/listen';

// The API's requests and responses are created with the app's own prototypes, so Express's
// per-request prototype swap changes nothing (the swap cost ~135 µs of CPU per authenticated read,
// bench/README.md, `api`). Observed on the server's 'request' event, before Express handles it.

let t: TestDatabase;
let key: string;
const servers: Server[] = [];
const stops: (() => void)[] = [];

beforeAll(async () => {
  t = await createTestDatabase();
  key = (await seedCompany(t.db)).rootKey;
});
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  for (const stop of stops) stop();
  await t.drop();
});

function apiApp() {
  const made = createApp({
    config: testConfig(),
    logger: createLogger({ level: 'warn' }),
    db: t.db,
    masterKey: new MasterKey(randomBytes(32)),
    plugins: loadPlugins(),
    metrics: createMetrics(),
  });
  for (const s of made.limiters.stores) stops.push(() => s.shutdown());
  return made.app;
}

/** GET /v1/me on `server`, with what the request and response were made as when they arrived. */
async function meThrough(server: Server) {
  servers.push(server);
  const seen: { req: object | null; res: object | null }[] = [];
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    seen.push({ req: Object.getPrototypeOf(req), res: Object.getPrototypeOf(res) });
  });
  const { port } = server.address() as AddressInfo;
  const r = await call(`http://127.0.0.1:${port}`, 'GET', '/v1/me', { key });
  return { status: r.status, body: r.body as { company: { name: string } }, seen };
}

test('walletd serve: the API server makes requests and responses with the app prototypes', async () => {
  const app = apiApp();
  const r = await meThrough(await listen(app, 0, '127.0.0.1', { portKnob: 'PORT or server.port' }));
  expect(r.status).toBe(200);
  expect(r.body.company.name).toBe('Acme');
  expect(r.seen).toHaveLength(1);
  expect(r.seen[0]?.req).toBe(app.request);
  expect(r.seen[0]?.res).toBe(app.response);
});

test('app.listen serves the same way, and still hands a listen error to its callback', async () => {
  const app = apiApp();
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const r = await meThrough(server);
  expect(r.status).toBe(200);
  expect(r.seen[0]?.req).toBe(app.request);
  expect(r.seen[0]?.res).toBe(app.response);

  const taken = (server.address() as AddressInfo).port;
  const err = await new Promise<unknown>((resolve) => {
    const s = app.listen(taken, '127.0.0.1', resolve as () => void);
    servers.push(s);
  });
  expect((err as NodeJS.ErrnoException).code).toBe('EADDRINUSE');
});
