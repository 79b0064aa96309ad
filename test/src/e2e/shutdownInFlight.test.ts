import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createTestDatabase, freePort, seedCompany, spawnWalletd, type TestDatabase } from '@walletd/test-harness';

/**
 * A client that gives up (or a load generator that stops mid-request) closes its socket while its
 * request still waits for the database. The HTTP server's close completes when the sockets do, so
 * `serve` used to destroy the pool under those handlers on SIGTERM: their pending acquires failed
 * as "aborted" and were logged as unhandled errors. Now the database closes once the pool is idle.
 */
let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.drop());

it('lets requests whose clients went away finish before the database closes on SIGTERM', async () => {
  const s = await seedCompany(t.db);
  const dir = mkdtempSync(join(tmpdir(), 'walletd-shutdown-'));
  const config = join(dir, 'walletd.json');
  // One connection: the first request holds it (blocked by our lock), the others wait for it.
  writeFileSync(config, JSON.stringify({ bootstrap: false, devnet: { enabled: false }, chains: [], database: { poolMax: 1 } }));
  const port = await freePort();
  const p = spawnWalletd(['serve', '--roles', 'api', '--config', config], {
    DATABASE_URL: t.url,
    WALLETD_MASTER_KEY: randomBytes(32).toString('hex'),
    PORT: String(port),
    HOST: '127.0.0.1',
  });
  try {
    await p.waitFor(/API listening/);
    const locker = await t.db.client.acquireConnection();
    try {
      await locker.query('begin');
      await locker.query('lock table rate_limit_hits in access exclusive mode');
      const aborts = Array.from({ length: 3 }, () => new AbortController());
      const requests = aborts.map((a) =>
        fetch(`http://127.0.0.1:${port}/v1/me`, { headers: { authorization: `Bearer ${s.rootKey}` }, signal: a.signal }).catch(
          () => 'aborted',
        ),
      );
      // Every request is inside walletd now (one blocked on the lock, two waiting for the connection).
      await new Promise((r) => setTimeout(r, 500));
      for (const a of aborts) a.abort();
      expect(await Promise.all(requests)).toEqual(['aborted', 'aborted', 'aborted']);
      p.child.kill('SIGTERM');
      await p.waitFor(/shutting down/);
      await new Promise((r) => setTimeout(r, 300));
      await locker.query('rollback');
    } finally {
      await t.db.client.releaseConnection(locker);
    }
    expect(await p.exited).toBe(0);
    const errors = (p.stdout() + p.stderr())
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: number; msg: string })
      .filter((l) => l.level >= 50);
    expect(errors).toEqual([]);
    expect(p.stderr()).toMatch(/"clean":true/);
  } finally {
    if (p.child.exitCode === null) p.child.kill('SIGKILL');
  }
});
