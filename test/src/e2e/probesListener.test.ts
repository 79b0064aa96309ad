import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, freePort, spawnWalletd, type TestDatabase, type WalletdProcess } from '@walletd/test-harness';

/**
 * Issue 48: `serve --roles dispatcher` and `--roles indexer` serve no API, yet an orchestrator
 * must probe them and Prometheus scrape them. `server.probesPort` (WALLETD_PROBES_PORT) gives them
 * a listener answering /healthz, /readyz and /metrics, and nothing else.
 */
describe('the probes listener of processes that serve no API', () => {
  let t: TestDatabase;
  let config: string;
  const procs: WalletdProcess[] = [];
  const hex = randomBytes(32).toString('hex');

  beforeAll(async () => {
    t = await createTestDatabase();
    config = join(mkdtempSync(join(tmpdir(), 'walletd-probes-')), 'walletd.json');
    writeFileSync(config, JSON.stringify({ bootstrap: false, devnet: { enabled: false } }));
  });
  afterAll(async () => {
    for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await t.drop();
  });

  async function serveRole(role: string): Promise<{ proc: WalletdProcess; probes: string; api: string }> {
    const [probesPort, apiPort] = [await freePort(), await freePort()];
    const proc = spawnWalletd(['serve', '--roles', role, '--config', config], {
      DATABASE_URL: t.url,
      WALLETD_MASTER_KEY: hex,
      HOST: '127.0.0.1',
      PORT: String(apiPort),
      WALLETD_PROBES_PORT: String(probesPort),
    });
    procs.push(proc);
    await proc.waitFor(/probes listening/);
    return { proc, probes: `http://127.0.0.1:${probesPort}`, api: `http://127.0.0.1:${apiPort}` };
  }

  it.each([
    ['dispatcher', /walletd_webhook_/],
    ['indexer', /walletd_/],
  ])('--roles %s answers /healthz, /readyz and /metrics there, and no API anywhere', async (role, metric) => {
    const { proc, probes, api } = await serveRole(role);
    const healthz = await fetch(`${probes}/healthz`);
    expect(healthz.status).toBe(200);
    expect(await healthz.json()).toEqual({ status: 'ok' });
    // No chain configured: nothing lags, so the process is ready.
    const readyz = await fetch(`${probes}/readyz`);
    expect(readyz.status).toBe(200);
    expect(await readyz.json()).toMatchObject({ status: 'ready' });
    const metrics = await fetch(`${probes}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await metrics.text()).toMatch(metric);

    // The API is not served on the probes port, nor on the API port (nothing listens there).
    const wallets = await fetch(`${probes}/v1/wallets`);
    expect(wallets.status).toBe(404);
    expect(await wallets.json()).toMatchObject({ code: 'not_found' });
    const post = await fetch(`${probes}/healthz`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    await expect(fetch(`${api}/healthz`)).rejects.toThrow();

    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
  });

  it('an invalid WALLETD_PROBES_PORT stops start-up naming it', async () => {
    const proc = spawnWalletd(['serve', '--roles', 'dispatcher', '--config', config], {
      DATABASE_URL: t.url,
      WALLETD_MASTER_KEY: hex,
      WALLETD_PROBES_PORT: 'eighty',
    });
    procs.push(proc);
    expect(await proc.exited).not.toBe(0);
    expect(proc.stdout() + proc.stderr()).toMatch(/WALLETD_PROBES_PORT/);
  });
});
