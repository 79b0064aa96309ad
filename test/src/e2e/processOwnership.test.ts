import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, freePort, pidAlive, runWalletdAsync, spawnWalletd, type WalletdProcess } from '@walletd/test-harness';

/**
 * Several walletd processes on one data directory, as an operator runs them: a `serve`, admin
 * commands given other ports, a second `serve`. None of them may stop the embedded PostgreSQL
 * or the devnet anvil another live process uses; the last one out stops them.
 */
describe('walletd processes sharing one data directory', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'walletd-owners-'));
  let env: Record<string, string>;
  let first: WalletdProcess;
  let key: string;
  const spawned: WalletdProcess[] = [];
  const serve = (extra: Record<string, string> = {}): WalletdProcess => {
    const p = spawnWalletd(['serve'], { ...env, ...extra });
    spawned.push(p);
    return p;
  };

  const postmasterPid = (): number | null => {
    const f = join(dataDir, 'pg', 'postmaster.pid');
    return existsSync(f) ? Number(readFileSync(f, 'utf8').split('\n')[0]) : null;
  };
  const anvilPid = () => Number(readFileSync(join(dataDir, 'anvil', 'anvil.pid'), 'utf8'));
  const devnet = () => JSON.parse(readFileSync(join(dataDir, 'anvil', 'devnet.json'), 'utf8')) as { rpcUrl: string; usdc: string };
  const rpc = async <T>(url: string, method: string, params: unknown[] = []): Promise<T> => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return ((await res.json()) as { result: T }).result;
  };
  const ready = async (port: string) => (await fetch(`http://127.0.0.1:${port}/readyz`)).status;
  const me = async (port: string, bearer: string) =>
    (await fetch(`http://127.0.0.1:${port}/v1/me`, { headers: { authorization: `Bearer ${bearer}` } })).status;

  beforeAll(async () => {
    env = {
      WALLETD_DATA_DIR: dataDir,
      WALLETD_EMBEDDED_PG_PORT: String(await freePort()),
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      DATABASE_URL: '',
      WALLETD_MASTER_KEY: '',
      WALLETD_DEVNET_PORT: String(await freePort()),
    };
    first = serve();
    [, key] = (await first.waitFor(/API key \(shown once, store it now\): (svc_live_\w+)/)) as unknown as [string, string];
    await first.waitFor(/API listening/);
  });
  afterAll(async () => {
    for (const p of spawned) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  });

  it('an admin command with another or no WALLETD_EMBEDDED_PG_PORT joins the running cluster; the server stays ready', async () => {
    const pgPid = postmasterPid();
    const other = await runWalletdAsync(['admin', 'company', 'create', '--name', 'Joined', '--plan', 'paid'], {
      ...env,
      WALLETD_EMBEDDED_PG_PORT: String(await freePort()),
      LOG_LEVEL: 'info',
    });
    expect(other.stderr).not.toContain('orphaned');
    expect(other.status).toBe(0);
    expect(other.stderr).toContain(
      `joining the embedded PostgreSQL run by walletd process ${first.child.pid} on port ${env.WALLETD_EMBEDDED_PG_PORT}`,
    );
    // Absent: the default port (54329), which this cluster does not use either.
    const absent = { ...env, WALLETD_EMBEDDED_PG_PORT: undefined };
    const company = String(other.json.id);
    const owner = await runWalletdAsync(['admin', 'member', 'invite', '--company', company, '--email', 'o@joined.test'], absent);
    expect(owner.status).toBe(0);
    // Only the link the operator hands over (with the warning that no mail transport carries it):
    // nothing about the cluster it joined.
    expect(owner.stderr).toBe(
      `warning: no mail transport is configured (mail.smtp): the link is shown to you instead of being mailed to the member. Hand it to them yourself, over a channel only they read: whoever holds it becomes this member\none-time invitation link for o@joined.test: ${owner.json.url}\n`,
    );
    // A read through the joined cluster: the company just made there, and the first start's key.
    const listed = await runWalletdAsync(['admin', 'key', 'list', '--company', '1'], absent);
    expect(listed.status).toBe(0);
    expect(listed.json).toMatchObject([{ companyId: 1, name: 'bootstrap', revokedAt: null }]);
    const companies = await runWalletdAsync(['admin', 'company', 'list'], absent);
    expect(companies.json.map((c: { id: number }) => c.id)).toContain(other.json.id);
    expect(postmasterPid()).toBe(pgPid);
    expect(await ready(env.PORT as string)).toBe(200);
    expect(await me(env.PORT as string, key)).toBe(200);
  });

  it('an admin command pointed at a data directory without a cluster says so and creates nothing', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'walletd-empty-'));
    const r = await runWalletdAsync(['admin', 'company', 'create', '--name', 'Nowhere'], { ...env, WALLETD_DATA_DIR: empty });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`walletd: no embedded PostgreSQL cluster in ${join(empty, 'pg')}`);
    expect(r.stderr).toContain('WALLETD_DATA_DIR');
    expect(existsSync(join(empty, 'pg'))).toBe(false);
  });

  it('a second serve joins the cluster and the devnet; one whose API port is taken exits 1; the owner hands over on exit', async () => {
    const pgPid = postmasterPid() as number;
    const anvil = anvilPid();
    const second = serve({
      PORT: String(await freePort()),
      WALLETD_EMBEDDED_PG_PORT: String(await freePort()),
      WALLETD_DEVNET_PORT: String(await freePort()),
    });
    await second.waitFor(/API listening/);
    expect(second.stderr()).toContain(`joining the devnet run by walletd process ${first.child.pid}`);
    expect(second.stderr()).not.toContain('orphaned');
    expect(pidAlive(anvil)).toBe(true);
    expect(anvilPid()).toBe(anvil);
    expect(postmasterPid()).toBe(pgPid);

    // A third on the first's API port: a fatal error, not a service without an API.
    const taken = serve({ WALLETD_EMBEDDED_PG_PORT: String(await freePort()) });
    expect(await taken.exited).toBe(1);
    expect(taken.stderr()).toContain(`walletd: port ${env.PORT} is in use`);
    expect(taken.stderr()).not.toContain('API listening');
    expect(pidAlive(anvil)).toBe(true);
    expect(postmasterPid()).toBe(pgPid);
    expect(await ready(env.PORT as string)).toBe(200);
    expect(await rpc<string>(devnet().rpcUrl, 'eth_chainId')).toBe('0x7a69');

    // The owner leaves: the cluster and the devnet stay for the second serve, which then stops them.
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(pidAlive(pgPid)).toBe(true);
    expect(pidAlive(anvil)).toBe(true);
    const secondPort = /"port":(\d+),"msg":"API listening"/.exec(second.stderr())?.[1] as string;
    expect(await ready(secondPort)).toBe(200);
    expect(await me(secondPort, key)).toBe(200);
    // The devnet's description stays with it: walletd dev fund reaches the anvil the second runs.
    const funded = await runWalletdAsync(['dev', 'fund', '--address', '0x000000000000000000000000000000000000dEaD', '--amount', '1'], env);
    expect([funded.status, funded.stderr]).toEqual([0, '']);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(pidAlive(pgPid)).toBe(false);
    expect(pidAlive(anvil)).toBe(false);
    expect(existsSync(join(dataDir, 'devchains', 'evm.json'))).toBe(false);
  });

  it('a saved devnet chain that does not restore consistently is discarded with a log line, and the devnet starts afresh', async () => {
    // Break the saved chain the way anvil's reload did: block 0 no longer hashes to block 1's parent.
    const stateFile = join(dataDir, 'anvil', 'state.json');
    const state = JSON.parse(readFileSync(stateFile, 'utf8')) as { blocks: { header: { number: string; timestamp: string } }[] };
    const genesis = state.blocks.find((b) => b.header.number === '0x0');
    if (!genesis) throw new Error('the saved devnet state has no block 0');
    genesis.header.timestamp = `0x${(BigInt(genesis.header.timestamp) - 1000n).toString(16)}`;
    writeFileSync(stateFile, JSON.stringify(state));

    const again = serve();
    await again.waitFor(/API listening/);
    expect(again.stderr()).toContain('the saved devnet chain did not restore consistently');
    const { rpcUrl, usdc } = devnet();
    await eventually(
      () => rpc<string>(rpcUrl, 'eth_blockNumber'),
      (n) => BigInt(n) >= 2n,
    );
    const block0 = await rpc<{ hash: string }>(rpcUrl, 'eth_getBlockByNumber', ['0x0', false]);
    const block1 = await rpc<{ parentHash: string }>(rpcUrl, 'eth_getBlockByNumber', ['0x1', false]);
    expect(block1.parentHash).toBe(block0.hash);
    expect(await rpc<string>(rpcUrl, 'eth_getCode', [usdc, 'latest'])).not.toBe('0x');
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
  });
});
