import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb, migrateLatest } from '@walletd/core';
import {
  call,
  type DedicatedPostgres,
  freePort,
  seedCompany,
  spawnWalletd,
  startDedicatedPostgres,
  type WalletdProcess,
} from '@walletd/test-harness';

/**
 * The real walletd process (every role) on its own PostgreSQL, which the test then stops: the
 * shared harness cluster other suites use is never touched.
 */
describe('walletd with its database down', () => {
  const dir = mkdtempSync(join(tmpdir(), 'walletd-dbdown-'));
  let pg: DedicatedPostgres;
  let server: WalletdProcess;
  let base: string;
  let key: string;

  beforeAll(async () => {
    pg = await startDedicatedPostgres();
    const db = createDb({ url: pg.url });
    await migrateLatest(db);
    key = (await seedCompany(db)).rootKey;
    await db.destroy();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = spawnWalletd(['serve', '--roles', 'api,dispatcher,indexer'], {
      DATABASE_URL: pg.url,
      WALLETD_MASTER_KEY: randomBytes(32).toString('hex'),
      WALLETD_BOOTSTRAP: '0',
      WALLETD_DEVNET: '0',
      PORT: String(port),
      HOST: '127.0.0.1',
      WALLETD_DATA_DIR: join(dir, 'state'),
    });
    await server.waitFor(/API listening/);
    await server.waitFor(/dispatcher started/);
  });
  afterAll(async () => {
    if (server && server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    await pg?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 503 unavailable with Retry-After, and logs one role key per line with knex as JSON', async () => {
    expect((await call(base, 'GET', '/v1/me', { key })).status).toBe(200);

    await pg.stop();

    const down = await call(base, 'GET', '/v1/me', { key });
    expect(down.status).toBe(503);
    expect(down.body).toEqual({
      statusCode: 503,
      error: 'Service Unavailable',
      message: 'The database is unreachable; retry later',
      code: 'unavailable',
    });
    expect(down.headers.get('retry-after')).toBe('5');
    const ready = await call(base, 'GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ statusCode: 503, code: 'unavailable' });
    expect(ready.headers.get('retry-after')).toBe('5');

    await server.waitFor(/Acquire connection error/);
    server.child.kill('SIGTERM');
    await server.exited;

    // Every line both streams carry is one pino JSON object with exactly one `role` key (JSON.parse
    // keeps the last of duplicate keys, so they are counted in the raw text).
    const lines = `${server.stdout()}${server.stderr()}`.split('\n').filter((l) => l.trim() !== '');
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const roleCounts = lines.map((line) => line.match(/"role":/g)?.length ?? 0);
    expect(roleCounts.every((n) => n === 1)).toBe(true);
    expect(new Set(parsed.map((p) => p.role))).toEqual(new Set(['api,dispatcher,indexer', 'api', 'dispatcher', 'indexer']));
    const knex = parsed.find((p) => p.component === 'knex' && String(p.msg).startsWith('Acquire connection error'));
    expect(knex).toMatchObject({ level: 40, role: 'api,dispatcher,indexer' });
    // The first failed connection names the database as down: refused once the server is gone,
    // refused by the server itself while it shuts down, or reset by it mid-handshake (a pool
    // connection racing the stop; the last two seen under load, the reset in CI): each is the
    // cause, never a pool that is "probably full" or a timeout.
    expect(String(knex?.msg)).toMatch(/ECONNREFUSED|ECONNRESET|the database system is shutting down/);
    expect(String(knex?.msg)).not.toMatch(/probably full|timeout/i);
  });
});
