import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, freePort, runWalletdAsync, spawnWalletd, type WalletdProcess } from '@walletd/test-harness';

/**
 * The free-space floor (`database.minFreeBytes`, 512 MB by default) on a real `walletd serve`. A
 * real disk cannot be filled here: the test knob WALLETD_TEST_FREE_BYTES_FILE makes the process
 * read its free bytes from a file instead of statfs, so the test crosses the floor both ways.
 */
describe('walletd serve below the free-space floor of its database disk', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'walletd-floor-'));
  const pgDir = join(dataDir, 'pg');
  const freeFile = join(mkdtempSync(join(tmpdir(), 'walletd-floor-knob-')), 'free-bytes');
  let env: Record<string, string>;
  let p: WalletdProcess;

  beforeAll(async () => {
    writeFileSync(freeFile, String(100 * 1024 * 1024));
    env = {
      WALLETD_DATA_DIR: dataDir,
      WALLETD_EMBEDDED_PG_PORT: String(await freePort()),
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      DATABASE_URL: '',
      WALLETD_MASTER_KEY: '',
      WALLETD_DEVNET_PORT: String(await freePort()),
      WALLETD_TEST_FREE_BYTES_FILE: freeFile,
    };
    p = spawnWalletd(['serve'], env);
  });
  afterAll(async () => {
    if (p && p.child.exitCode === null) {
      p.child.kill('SIGTERM');
      await p.exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('pauses the indexer and says "disk full on <path>" in /readyz and the log, and resumes once space is freed', async () => {
    const [, key] = (await p.waitFor(/API key \(shown once, store it now\): (svc_live_\w+)/)) as unknown as [string, string];
    await p.waitFor(/API listening/);
    const shortage = `disk full on ${pgDir}: 100 MB free, below the floor of 512 MB (database.minFreeBytes)`;
    await p.waitFor(/indexer paused, no writes until space is freed/);
    expect(p.stderr()).toContain(`"msg":"${shortage}: indexer paused, no writes until space is freed"`);

    const url = (path: string) => `http://127.0.0.1:${env.PORT}${path}`;
    const ready = await fetch(url('/readyz'));
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({
      statusCode: 503,
      error: 'Service Unavailable',
      code: 'unavailable',
      reason: 'disk_full',
      message: `${shortage}; the indexer pauses writes`,
    });
    // Not a reason to restart the process: it recovers when space is freed.
    expect((await fetch(url('/healthz'))).status).toBe(200);

    // The API still answers; a deposit made now waits for the indexer.
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const post = async (path: string, body?: unknown) =>
      (await (
        await fetch(url(`/v1${path}`), { method: 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body) })
      ).json()) as any;
    const wallet = await post('/wallets', { name: 'dev', chain: 'ethereum', network: 'devnet' });
    const { address } = await post(`/wallets/${wallet.id}/addresses`);
    const funded = await runWalletdAsync(['dev', 'fund', '--address', address, '--amount', '1.5'], env);
    expect(funded.status).toBe(0);
    const metrics = await (await fetch(url('/metrics'))).text();
    expect(metrics).toMatch(/walletd_database_disk_below_floor 1/);
    // Not one block was written while paused.
    expect(metrics).not.toMatch(/walletd_blocks_indexed_total\{[^}]*\} [1-9]/);

    writeFileSync(freeFile, String(600 * 1024 * 1024));
    await p.waitFor(/free space above the floor again: indexer resumed/);
    const feed = await eventually(
      async () => (await (await fetch(url('/v1/events?limit=100'), { headers })).json()) as { events: { type: string; data: any }[] },
      (f) => f.events.some((e) => e.type === 'deposit.detected'),
      60_000,
    );
    expect(feed.events.filter((e) => e.type === 'deposit.detected').map((e) => [e.data.txHash, e.data.amount])).toEqual([
      [funded.json.txHash, '1.5'],
    ]);
    const readyAgain = await eventually(
      () => fetch(url('/readyz')),
      (r) => r.status === 200,
      60_000,
    );
    expect(readyAgain.status).toBe(200);
  }, 120_000);
});
