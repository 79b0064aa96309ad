import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, freePort, pidAlive, runWalletd, spawnWalletd, type WalletdProcess } from '@walletd/test-harness';

/**
 * What `npm start` does on a fresh clone: embedded PostgreSQL, migrations, a bootstrap key,
 * the API; then Ctrl-C leaves nothing behind, and after a kill -9 the next start adopts what was left.
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
      WALLETD_DEVNET_PORT: String(await freePort()),
      WALLETD_CONSOLE_PORT: String(await freePort()),
    };
  });

  const spawned: WalletdProcess[] = [];
  const serve = (): WalletdProcess => {
    const p = spawnWalletd(['serve'], env);
    spawned.push(p);
    return p;
  };
  // Whatever happens in the test, nothing it started outlives it.
  afterAll(async () => {
    for (const p of spawned) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  });

  const postmasterPid = (): number | null => {
    const f = join(dataDir, 'pg', 'postmaster.pid');
    return existsSync(f) ? Number(readFileSync(f, 'utf8').split('\n')[0]) : null;
  };

  it('starts, prints a working key once, and stops postgres on SIGINT', async () => {
    const p = serve();
    const [, key] = await p.waitFor(/API key \(shown once, store it now\): (svc_live_\w+)/);
    await p.waitFor(/API listening/);
    expect(p.stdout()).toContain(`curl -s -H "Authorization: Bearer ${key}" http://localhost:${env.PORT}/v1/me`);
    const me = await fetch(`http://127.0.0.1:${env.PORT}/v1/me`, { headers: { authorization: `Bearer ${key}` } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { company: { plan: string } }).company.plan).toBe('paid');
    expect(p.stderr()).toContain(`data lives in ${join(dataDir, 'pg')}`);
    // The key never reaches the log stream.
    expect(p.stderr()).not.toContain(key as string);
    // The console runs by default, and the first start prints the owner's one-time link to it.
    const [ownerLink, token] = (p.stdout().match(/http:\/\/localhost:(?:\d+)\/console\/links\/([\w-]+)/) ?? []) as string[];
    expect(ownerLink).toBe(`http://localhost:${env.WALLETD_CONSOLE_PORT}/console/links/${token}`);
    expect(p.stderr()).not.toContain(token as string);
    const consoleApi = `http://127.0.0.1:${env.WALLETD_CONSOLE_PORT}/console/api`;
    const json = { 'content-type': 'application/json' };
    const password = 'the owner passphrase';
    const accepted = await fetch(`${consoleApi}/links/${token}`, { method: 'POST', headers: json, body: JSON.stringify({ password }) });
    expect(accepted.status).toBe(200);
    const signedIn = await fetch(`${consoleApi}/session`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: 'owner@localhost', password }),
    });
    expect(signedIn.status).toBe(201);
    // The owner must enroll an authenticator before anything else.
    expect(((await signedIn.json()) as { mfaEnrollmentRequired: boolean }).mfaEnrollmentRequired).toBe(true);
    // The link works once.
    const reused = await fetch(`${consoleApi}/links/${token}`, { method: 'POST', headers: json, body: JSON.stringify({ password }) });
    expect(reused.status).toBe(404);
    // The newcomer loop on the devnet: wallet, deposit address, fund, deposit seen through the API.
    const base = `http://127.0.0.1:${env.PORT}/v1`;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const wallet = (await (
      await fetch(`${base}/wallets`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'dev', chain: 'ethereum', network: 'devnet' }),
      })
    ).json()) as { id: number };
    const address = (await (await fetch(`${base}/wallets/${wallet.id}/addresses`, { method: 'POST', headers })).json()) as {
      address: string;
    };
    const funded = runWalletd(['dev', 'fund', '--address', address.address, '--amount', '1.25'], env);
    expect(funded.status).toBe(0);
    const usdc = runWalletd(['dev', 'fund', '--address', address.address, '--amount', '7', '--token', 'USDC'], env);
    expect(usdc.status).toBe(0);
    const balances = await eventually(
      async () =>
        (await (await fetch(`${base}/wallets/${wallet.id}/balances`, { headers })).json()) as {
          balances: { asset: { symbol: string }; confirmed: string; pending: string }[];
        },
      (b) => b.balances.every((x) => x.confirmed !== '0' || x.pending !== '0'),
    );
    expect(balances.balances.map((b) => [b.asset.symbol, b.confirmed === '0' ? b.pending : b.confirmed])).toEqual([
      ['ETH', '1.25'],
      ['USDC', '7'],
    ]);
    const found = (await (await fetch(`${base}/transactions?search=${funded.json.txHash}`, { headers })).json()) as {
      transactions: { amount: string }[];
    };
    expect(found.transactions.map((x) => x.amount)).toEqual(['1.25']);

    const pgPid = postmasterPid();
    expect(pgPid && pidAlive(pgPid)).toBe(true);

    p.child.kill('SIGINT');
    expect(await p.exited).toBe(0);
    expect(pidAlive(pgPid as number)).toBe(false);
    expect(postmasterPid()).toBeNull();

    // Second start: same data, no new key.
    const again = serve();
    await again.waitFor(/API listening/);
    // The devnet's first block after its restore: blocks below it were restored, not executed here.
    const head = await fetch(`http://127.0.0.1:${env.WALLETD_DEVNET_PORT}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
    });
    const restoredAt = Number(((await head.json()) as { result: string }).result) + 1;
    const me2 = await fetch(`http://127.0.0.1:${env.PORT}/v1/me`, { headers: { authorization: `Bearer ${key}` } });
    expect(me2.status).toBe(200);
    expect(again.stdout()).not.toContain('svc_live_');

    // kill -9 leaves postgres and anvil running with no owner; the next start adopts them (a live
    // cluster is never stopped by a newcomer: it may serve processes the newcomer cannot see).
    const orphan = postmasterPid() as number;
    again.child.kill('SIGKILL');
    await again.exited;
    expect(pidAlive(orphan)).toBe(true);
    const third = serve();
    await third.waitFor(/API listening/);
    expect(third.stderr()).toContain('adopting the running embedded PostgreSQL');
    expect(third.stderr()).toContain('adopting the running devnet anvil');
    expect(postmasterPid()).toBe(orphan);
    const me3 = await fetch(`http://127.0.0.1:${env.PORT}/v1/me`, { headers: { authorization: `Bearer ${key}` } });
    expect(me3.status).toBe(200);
    const last = postmasterPid() as number;
    // The indexer was killed with the rest: after the restart every event exists exactly once,
    // and both deposits reach confirmed (the restarted follower resumed from its cursor).
    type Feed = { events: { type: string; data: { txHash: string; eventIndex: number } }[] };
    const feed = await eventually(
      async () => (await (await fetch(`${base}/events?limit=1000`, { headers })).json()) as Feed,
      (f) => f.events.filter((e) => e.type === 'deposit.confirmed').length >= 2,
    );
    const keys = feed.events.map((e) => `${e.type}:${e.data.txHash}:${e.data.eventIndex}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(feed.events.filter((e) => e.type === 'deposit.detected')).toHaveLength(2);
    expect(feed.events.filter((e) => e.type === 'deposit.confirmed')).toHaveLength(2);

    // A rescan from genesis: the devnet's anvil was restored from its saved state at the second
    // start, so it can no longer trace (nor read the state of) the blocks before it; the rescan
    // says so and stops rather than read those blocks as holding no contract payments (issue 41).
    const refused = runWalletd(['indexer', 'rescan', '--chain', 'ethereum', '--network', 'devnet', '--from', '0'], env);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/call traces of block 0x[0-9a-f]+ are unusable/);
    // From the restore on, a rescan while the service runs finds nothing new.
    const rescan = runWalletd(['indexer', 'rescan', '--chain', 'ethereum', '--network', 'devnet', '--from', String(restoredAt)], env);
    expect(rescan.status).toBe(0);
    expect(rescan.json).toMatchObject({ chain: 'ethereum', network: 'devnet', from: restoredAt, newEvents: 0 });

    const anvilPid = Number(readFileSync(join(dataDir, 'anvil', 'anvil.pid'), 'utf8'));
    expect(pidAlive(anvilPid)).toBe(true);
    third.child.kill('SIGTERM');
    expect(await third.exited).toBe(0);
    expect(pidAlive(last)).toBe(false);
    expect(pidAlive(anvilPid)).toBe(false);
    // Three starts of walletd with its PostgreSQL and anvil, and six CLI processes: about 25 s on
    // an idle 2-core machine, over the default 60 s beside the rest of the suite.
  }, 180_000);
});
