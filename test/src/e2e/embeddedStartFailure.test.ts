import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, pidAlive, runWalletdAsync } from '@walletd/test-harness';

/**
 * A `walletd serve` whose embedded PostgreSQL starts but cannot be used (on a full disk every new
 * connection fails with "could not write init file"; here the cluster's pg_hba.conf rejects them,
 * which fails the same step) exits, and stops the cluster it started instead of leaving it running.
 */
describe('walletd serve when its embedded PostgreSQL starts but cannot be used', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'walletd-pgstartfail-'));
  const pgDir = join(dataDir, 'pg');
  const postmaster = (): number | null => {
    const file = join(pgDir, 'postmaster.pid');
    return existsSync(file) ? Number(readFileSync(file, 'utf8').split('\n')[0]) : null;
  };
  afterAll(() => {
    // Whatever the outcome, no cluster outlives the test (immediate shutdown of one left behind).
    const left = postmaster();
    if (left !== null && pidAlive(left)) process.kill(left, 'SIGQUIT');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('exits non-zero and leaves no PostgreSQL running', async () => {
    const env = {
      WALLETD_DATA_DIR: dataDir,
      WALLETD_EMBEDDED_PG_PORT: String(await freePort()),
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      DATABASE_URL: '',
      WALLETD_MASTER_KEY: '',
      WALLETD_DEVNET: '0',
      LOG_LEVEL: 'info',
    };
    // The cluster is created, migrated and stopped again.
    const migrated = await runWalletdAsync(['migrate'], env);
    expect(migrated.status).toBe(0);
    expect(existsSync(join(pgDir, 'PG_VERSION'))).toBe(true);
    writeFileSync(join(pgDir, 'pg_hba.conf'), 'host all all 127.0.0.1/32 reject\nhost all all ::1/128 reject\n');

    const served = await runWalletdAsync(['serve'], env);
    expect(served.status).not.toBe(0);
    expect(served.stderr).toMatch(/pg_hba\.conf rejects connection/);
    const left = postmaster();
    expect(left !== null && pidAlive(left)).toBe(false);
    expect(served.stderr).toMatch(/embedded PostgreSQL stopped/);
  }, 120_000);
});
