import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { MasterKey, createLogger, createMetrics } from '@walletd/core';
import { createApp, createConsoleApp, loadPlugins } from '@walletd/server';
import { call, createTestDatabase, startTestApp, testConfig, type TestApp, type TestDatabase } from '@walletd/test-harness';

/**
 * Issue 44 moved server/ from layer folders to feature folders, behaviour unchanged. These
 * fixtures were taken from the tree before the move: the OpenAPI document the API serves, and
 * every route (method and full path) the API and the console apps mount, in mount order. A move
 * that drops, renames or reorders a route fails here. A deliberate API change regenerates them:
 * `WALLETD_WRITE_FIXTURES=1 npx jest test/src/e2e/openapiUnchanged.test.ts`.
 */
const FIXTURES = join(__dirname, '..', '..', 'fixtures');
const OPENAPI = join(FIXTURES, 'openapi-before-44.json');
const ROUTES = join(FIXTURES, 'routes-before-44.json');
const write = process.env.WALLETD_WRITE_FIXTURES === '1';

type Layer = { route?: { path: unknown; methods: Record<string, boolean> }; rawPath?: unknown; handle: { stack?: Layer[] } };

/** Every route of an Express app, as `METHOD /full/path`, from its router stack (router 2's `rawPath` keeps the mount path). */
function routesOf(stack: Layer[], prefix = ''): string[] {
  const out: string[] = [];
  for (const layer of stack) {
    if (layer.route) {
      const methods = Object.keys(layer.route.methods).filter((m) => layer.route!.methods[m]);
      for (const m of methods) out.push(`${m.toUpperCase()} ${prefix}${String(layer.route.path)}`);
    } else if (layer.handle.stack) {
      const at = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
      out.push(...routesOf(layer.handle.stack, prefix + at));
    }
  }
  return out;
}

function compare(file: string, actual: unknown): void {
  if (write) writeFileSync(file, `${JSON.stringify(actual, null, 2)}\n`);
  expect(actual).toEqual(JSON.parse(readFileSync(file, 'utf8')));
}

let t: TestDatabase;
let app: TestApp;

beforeAll(async () => {
  t = await createTestDatabase();
  app = await startTestApp(t.db);
});

afterAll(async () => {
  await app?.close();
  await t?.drop();
});

test('the served OpenAPI document is the one from before the move', async () => {
  const res = await call(app.url, 'GET', '/v1/openapi.json');
  expect(res.status).toBe(200);
  compare(OPENAPI, res.body);
});

test('the API and the console mount the same routes, in the same order', async () => {
  const common = {
    config: testConfig(),
    logger: createLogger({ level: 'silent' }),
    db: t.db,
    masterKey: new MasterKey(randomBytes(32)),
    plugins: loadPlugins(),
    metrics: createMetrics(),
  };
  const { app: api, limiters } = createApp(common);
  const console = createConsoleApp(common);
  try {
    const routes = {
      api: routesOf((api.router as unknown as { stack: Layer[] }).stack),
      console: routesOf((console.router as unknown as { stack: Layer[] }).stack),
    };
    expect(routes.api.length).toBeGreaterThan(40);
    expect(routes.console.length).toBeGreaterThan(40);
    compare(ROUTES, routes);
  } finally {
    for (const s of limiters.stores) s.shutdown();
  }
});
