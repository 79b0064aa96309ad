import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, freePort, pidAlive, runWalletdAsync, spawnWalletd, type WalletdProcess } from '@walletd/test-harness';

/**
 * The real `walletd serve` on its embedded PostgreSQL, whose postmaster the test kills (kill -9,
 * as a crash on a full disk ends it): the process starts the cluster again, deposits made before
 * and after are each recorded once, and /healthz fails only when the cluster cannot be restarted.
 */
describe('walletd serve when its embedded PostgreSQL dies', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'walletd-pgdeath-'));
  const pgDir = join(dataDir, 'pg');
  const config = join(dataDir, 'walletd.json');
  let env: Record<string, string>;
  let p: WalletdProcess;
  let key: string;
  let base: string;

  const postmasterPid = (): number => Number(readFileSync(join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const get = async (path: string, bearer?: string) => {
    const res = await fetch(`http://127.0.0.1:${env.PORT}${path}`, bearer ? { headers: { authorization: `Bearer ${bearer}` } } : {});
    const text = await res.text();
    return {
      status: res.status,
      text,
      json: (() => {
        try {
          return JSON.parse(text);
        } catch {
          return null;
        }
      })(),
    };
  };
  const post = async (path: string, body?: unknown) =>
    (await (
      await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    ).json()) as Record<string, any>;
  const deposits = async () => {
    const r = await get('/v1/events?limit=1000', key);
    const events = (r.json?.events ?? []) as { type: string; data: { txHash: string; amount: string } }[];
    return events.filter((e) => e.type === 'deposit.detected' || e.type === 'deposit.confirmed');
  };
  /** Waits for a log line written after `mark` (the log's length before the fault). */
  const logAfter = async (mark: number, pattern: RegExp) => {
    const log = await eventually(
      async () => p.stderr().slice(mark),
      (s) => pattern.test(s),
      60_000,
    );
    expect(log).toMatch(pattern);
  };

  beforeAll(async () => {
    // Fast back-off and few attempts, so that giving up takes seconds here (defaults: 1 s, 10).
    writeFileSync(config, JSON.stringify({ database: { embeddedRestartBackoffMs: 200, embeddedRestartAttempts: 2 } }));
    env = {
      WALLETD_DATA_DIR: dataDir,
      WALLETD_EMBEDDED_PG_PORT: String(await freePort()),
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      DATABASE_URL: '',
      WALLETD_MASTER_KEY: '',
      WALLETD_DEVNET_PORT: String(await freePort()),
    };
    p = spawnWalletd(['serve', '--config', config], env);
    [, key] = (await p.waitFor(/API key \(shown once, store it now\): (svc_live_\w+)/)) as unknown as [string, string];
    await p.waitFor(/API listening/);
    base = `http://127.0.0.1:${env.PORT}/v1`;
  });
  afterAll(async () => {
    if (p && p.child.exitCode === null) {
      p.child.kill('SIGTERM');
      await p.exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts a killed postmaster again and loses no deposit across it', async () => {
    const wallet = await post('/wallets', { name: 'dev', chain: 'ethereum', network: 'devnet' });
    const address = (await post(`/wallets/${wallet.id}/addresses`)).address as string;
    const fund = async (amount: string) => {
      const r = await runWalletdAsync(['dev', 'fund', '--address', address, '--amount', amount], env);
      expect(r.status).toBe(0);
      return r.json.txHash as string;
    };
    const before = await fund('1.25');
    await eventually(deposits, (d) => d.some((e) => e.type === 'deposit.detected' && e.data.txHash === before));

    const killed = postmasterPid();
    const mark = p.stderr().length;
    process.kill(killed, 'SIGKILL');
    await logAfter(mark, new RegExp(`embedded PostgreSQL stopped: its postmaster \\(pid ${killed}\\) exited; restarting it`));
    await logAfter(mark, /embedded PostgreSQL is running again/);
    expect(postmasterPid()).not.toBe(killed);
    expect(pidAlive(postmasterPid())).toBe(true);
    expect((await get('/healthz')).status).toBe(200);

    // The pool reconnected: the API answers and the indexer writes again.
    const after = await fund('2.5');
    const seen = await eventually(deposits, (d) => d.filter((e) => e.type === 'deposit.confirmed').length >= 2, 60_000);
    const keys = seen.map((e) => `${e.type}:${e.data.txHash}`);
    expect(keys.sort()).toEqual(
      [`deposit.confirmed:${after}`, `deposit.confirmed:${before}`, `deposit.detected:${after}`, `deposit.detected:${before}`].sort(),
    );
    const balances = await get(`/v1/wallets/${wallet.id}/balances`, key);
    expect(balances.json.balances.find((b: { asset: { symbol: string } }) => b.asset.symbol === 'ETH').confirmed).toBe('3.75');
    const metrics = (await get('/metrics')).text;
    expect(metrics).toMatch(/walletd_embedded_postgres_restarts_total\{outcome="restarted"\} 1/);
    expect(metrics).toMatch(/walletd_embedded_postgres_up 1/);
  }, 120_000);

  it('fails /healthz once the cluster could not be restarted, and recovers when it can be', async () => {
    // A setting the server refuses at start: every restart fails until the operator removes it.
    const autoConf = join(pgDir, 'postgresql.auto.conf');
    const good = readFileSync(autoConf, 'utf8');
    appendFileSync(autoConf, "shared_buffers = 'not a size'\n");
    const mark = p.stderr().length;
    process.kill(postmasterPid(), 'SIGKILL');
    // The server's own reason, in the one line.
    await logAfter(
      mark,
      /could not restart the embedded PostgreSQL after 2 attempts: embedded PostgreSQL did not start on port \d+ \(data in [^)]+\): FATAL: +configuration file .*postgresql\.auto\.conf.* contains errors; \/healthz now fails/,
    );

    const health = await get('/healthz');
    expect(health.status).toBe(503);
    expect(health.json).toMatchObject({ code: 'unavailable' });
    expect(health.json.message).toMatch(/^could not restart the embedded PostgreSQL after \d+ attempts: /);
    const ready = await get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.json).toMatchObject({ code: 'unavailable', reason: 'database_down' });
    expect(ready.json.message).toMatch(
      /FATAL: +configuration file .* contains errors: the embedded PostgreSQL is down since .*, \d+ restart attempts failed; restarting it$/,
    );

    writeFileSync(autoConf, good);
    const healthy = await eventually(
      () => get('/healthz'),
      (h) => h.status === 200,
      60_000,
    );
    expect(healthy.status).toBe(200);
    expect((await get('/v1/me', key)).status).toBe(200);
    expect(existsSync(join(pgDir, 'postmaster.pid'))).toBe(true);
  }, 120_000);
});
