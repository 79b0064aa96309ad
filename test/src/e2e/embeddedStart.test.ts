import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, pidAlive, spawnWalletd } from '@walletd/test-harness';

/**
 * What `npm start` does on a fresh clone: embedded PostgreSQL, migrations, a bootstrap key,
 * the API; then Ctrl-C leaves nothing behind, and a kill -9 does not stop the next start.
 */
describe('walletd serve on the embedded database', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'walletd-e2e-'));
  let env: Record<string, string>;

  beforeAll(async () => {
    env = {
      WALLETD_DATA_DIR: dataDir,
      WALLETD_EMBEDDED_PG_PORT: String(await freePort()),
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      DATABASE_URL: '',
      WALLETD_MASTER_KEY: '',
    };
  });

  const postmasterPid = (): number | null => {
    const f = join(dataDir, 'pg', 'postmaster.pid');
    return existsSync(f) ? Number(readFileSync(f, 'utf8').split('\n')[0]) : null;
  };

  it('starts, prints a working key once, and stops postgres on SIGINT', async () => {
    const p = spawnWalletd(['serve'], env);
    const [, key] = await p.waitFor(/API key \(shown once, store it now\): (svc_live_\w+)/);
    await p.waitFor(/API listening/);
    expect(p.stdout()).toContain(`curl -s -H "Authorization: Bearer ${key}" http://localhost:${env.PORT}/v1/me`);
    const me = await fetch(`http://127.0.0.1:${env.PORT}/v1/me`, { headers: { authorization: `Bearer ${key}` } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { company: { plan: string } }).company.plan).toBe('paid');
    expect(p.stderr()).toContain(`data lives in ${join(dataDir, 'pg')}`);
    // The key never reaches the log stream.
    expect(p.stderr()).not.toContain(key as string);
    const pgPid = postmasterPid();
    expect(pgPid && pidAlive(pgPid)).toBe(true);

    p.child.kill('SIGINT');
    expect(await p.exited).toBe(0);
    expect(pidAlive(pgPid as number)).toBe(false);
    expect(postmasterPid()).toBeNull();

    // Second start: same data, no new key.
    const again = spawnWalletd(['serve'], env);
    await again.waitFor(/API listening/);
    const me2 = await fetch(`http://127.0.0.1:${env.PORT}/v1/me`, { headers: { authorization: `Bearer ${key}` } });
    expect(me2.status).toBe(200);
    expect(again.stdout()).not.toContain('svc_live_');

    // kill -9 leaves an orphaned postgres; the next start stops it and starts its own.
    const orphan = postmasterPid() as number;
    again.child.kill('SIGKILL');
    await again.exited;
    expect(pidAlive(orphan)).toBe(true);
    const third = spawnWalletd(['serve'], env);
    await third.waitFor(/API listening/);
    expect(third.stderr()).toContain('stopping an orphaned embedded PostgreSQL');
    expect(pidAlive(orphan)).toBe(false);
    const me3 = await fetch(`http://127.0.0.1:${env.PORT}/v1/me`, { headers: { authorization: `Bearer ${key}` } });
    expect(me3.status).toBe(200);
    const last = postmasterPid() as number;
    third.child.kill('SIGTERM');
    expect(await third.exited).toBe(0);
    expect(pidAlive(last)).toBe(false);
  });
});
