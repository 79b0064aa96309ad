import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb, migrateLatest } from '@walletd/core';
import {
  type DedicatedPostgres,
  eventually,
  freePort,
  seedCompany,
  spawnWalletd,
  startDedicatedPostgres,
  type WalletdProcess,
} from '@walletd/test-harness';

/** The postmaster (first line of postmaster.pid) and every process it started (its backends, workers). */
function clusterPids(pgDir: string): number[] {
  const postmaster = Number(readFileSync(join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        // Field 4 of /proc/<pid>/stat is the parent; the name (field 2) may hold spaces, so after its ')'.
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [postmaster, ...children];
}

/** A probe that answers or not within the client's own 5 s: a hang fails the test, not the suite's timeout. */
async function within5s(url: string, key?: string): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { headers: key ? { authorization: `Bearer ${key}` } : {}, signal: AbortSignal.timeout(5_000) });
  return { status: res.status, body: await res.json() };
}

/**
 * The real walletd process on its own PostgreSQL, whose every process the test then stops with
 * SIGSTOP: connections are accepted by the kernel and never answered, no error ever comes (issue 43 §3).
 */
describe('walletd with its database hung (SIGSTOP)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'walletd-dbhung-'));
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
    const config = join(dir, 'walletd.json');
    // Short deadlines so that the test takes seconds; the defaults are in docs/operate/faults.md, "Database deadlines".
    writeFileSync(config, JSON.stringify({ database: { queryTimeoutMs: 2000, healthzAfterMs: 4000 } }));
    server = spawnWalletd(['serve', '--config', config, '--roles', 'api,dispatcher,indexer'], {
      DATABASE_URL: pg.url,
      WALLETD_MASTER_KEY: randomBytes(32).toString('hex'),
      WALLETD_BOOTSTRAP: '0',
      WALLETD_DEVNET: '0',
      PORT: String(port),
      HOST: '127.0.0.1',
      WALLETD_DATA_DIR: join(dir, 'state'),
    });
    await server.waitFor(/API listening/);
  });
  afterAll(async () => {
    if (server && server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    await pg?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers /readyz, /v1/me and then /healthz 503 database_unresponsive within their deadlines, says it once, and recovers', async () => {
    expect((await within5s(`${base}/v1/me`, key)).status).toBe(200);
    expect((await within5s(`${base}/healthz`)).status).toBe(200);

    const pids = clusterPids(pg.pgDir);
    try {
      for (const pid of pids) process.kill(pid, 'SIGSTOP');

      // A request that reaches a pooled connection before the watch notices: the client-side deadline ends it.
      const caught = await fetch(`${base}/v1/me`, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(15_000) });
      expect(caught.status).toBe(503);
      expect(await caught.json()).toMatchObject({ statusCode: 503, code: 'unavailable' });

      const ready = await eventually(
        () => within5s(`${base}/readyz`),
        (r) => r.body?.reason === 'database_unresponsive',
        20_000,
        250,
      );
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({ statusCode: 503, code: 'unavailable', reason: 'database_unresponsive' });

      const me = await within5s(`${base}/v1/me`, key);
      expect(me.status).toBe(503);
      expect(me.body).toMatchObject({
        statusCode: 503,
        error: 'Service Unavailable',
        code: 'unavailable',
        reason: 'database_unresponsive',
      });
      expect(me.body.message).toMatch(/^the database has not answered for \d+ s/);

      const health = await eventually(
        () => within5s(`${base}/healthz`),
        (r) => r.status === 503,
        20_000,
        250,
      );
      expect(health.body).toMatchObject({ statusCode: 503, code: 'unavailable', reason: 'database_unresponsive' });
    } finally {
      for (const pid of pids) process.kill(pid, 'SIGCONT');
    }

    const back = await eventually(
      () => within5s(`${base}/v1/me`, key),
      (r) => r.status === 200,
      30_000,
      250,
    );
    expect(back.status).toBe(200);
    expect((await within5s(`${base}/healthz`)).status).toBe(200);
    expect(
      (
        await eventually(
          () => within5s(`${base}/readyz`),
          (r) => r.status === 200,
          30_000,
          250,
        )
      ).status,
    ).toBe(200);

    await server.waitFor(/database: answers again/);
    const log = server.stdout() + server.stderr();
    expect(log.match(/database: no answer/g)).toHaveLength(1);
    expect(log).not.toMatch(/pool is probably full/);
  });
});
