import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Db, MasterKey, createDb, migrateLatest } from '@walletd/core';
import { createWallet, generateAddress, loadPlugins } from '@walletd/server';
import {
  type Anvil,
  type DedicatedPostgres,
  eventually,
  pidAlive,
  seedCompany,
  spawnWalletd,
  startAnvil,
  startDedicatedPostgres,
  type WalletdProcess,
  shippedPlugins,
} from '@walletd/test-harness';

/** Pids whose parent is `pid` (Linux /proc): what a walletd process started. */
function childPids(pid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // Fields after the command's closing parenthesis: state, ppid, …
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(name));
    } catch {
      /* the process ended while we read */
    }
  }
  return out;
}

/** The last thing a process said about leading the chain: following, standing by, or lease lost. */
function leadState(p: WalletdProcess): string | null {
  const states = [
    ...`${p.stdout()}${p.stderr()}`.matchAll(
      /"msg":"(following|another indexer follows this chain; standing by|indexer lease lost[^"]*)"/g,
    ),
  ];
  const last = states.at(-1)?.[1];
  if (last === undefined) return null;
  return last === 'following' ? 'following' : 'standing by';
}

/**
 * Two `walletd serve --roles indexer` processes on one chain, PostgreSQL restarted under them
 * while deposits flow (issue 10: after `pg_ctl restart` the standby took the session advisory
 * lock, the first indexer never noticed, both followed; a later Ctrl-C crashed the first one).
 * The cluster is the test's own: the run's shared one is never restarted.
 */
describe('indexer fail-over across a PostgreSQL restart', () => {
  let pg: DedicatedPostgres;
  let dir: string;
  let anvil: Anvil;
  let db: Db;
  const procs: WalletdProcess[] = [];
  const hex = randomBytes(32).toString('hex');
  const masterKey = new MasterKey(Buffer.from(hex, 'hex'));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'walletd-failover-'));
    // As root the cluster runs as `postgres`, which must traverse this folder (mkdtemp makes it 0700).
    chmodSync(dir, 0o711);
    pg = await startDedicatedPostgres({ dataDir: join(dir, 'data') });
    db = createDb({ url: pg.url });
    await migrateLatest(db);
    anvil = await startAnvil();
  });
  afterAll(async () => {
    for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await db?.destroy();
    await anvil?.stop();
    await pg?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('exactly one indexer follows afterwards, every deposit is announced once, and SIGINT exits 0 leaving nothing behind', async () => {
    const s = await seedCompany(db);
    const wallet = await createWallet(
      db,
      masterKey,
      { companyId: s.companyId, name: 'hot', chain: 'ethereum', network: 'devnet' },
      shippedPlugins(),
    );
    const address = await generateAddress(
      { db: db, masterKey, plugins: loadPlugins() },
      await db('wallets').where({ id: wallet.id }).first(),
      null,
    );
    const config = join(dir, 'walletd.json');
    writeFileSync(
      config,
      JSON.stringify({
        bootstrap: false,
        devnet: { enabled: false },
        indexer: { threads: 1, leaseTtlMs: 3000 },
        chains: [{ chain: 'ethereum', network: 'devnet', rpcUrl: anvil.url, startBlock: 0, confirmations: 2, pollIntervalMs: 100 }],
      }),
    );
    const indexer = () => {
      const p = spawnWalletd(['serve', '--roles', 'indexer', '--config', config], {
        DATABASE_URL: pg.url,
        WALLETD_MASTER_KEY: hex,
        WALLETD_DATA_DIR: dir,
      });
      procs.push(p);
      return p;
    };
    const a = indexer();
    await a.waitFor(/"msg":"following"/);
    const b = indexer();
    await b.waitFor(/standing by/);

    const sent: string[] = [];
    const deposit = async (n: number) => {
      for (let i = 0; i < n; i++) sent.push(await anvil.send(address.address, 10n ** 15n + BigInt(sent.length)));
    };
    const confirmedEvents = (client: Db) => client('events').where({ type: 'deposit.confirmed' }).count('* as n');
    await deposit(3);
    await anvil.mine(2);
    expect(
      await eventually(
        () => confirmedEvents(db),
        (r) => Number(r[0]?.n) === 3,
        30_000,
      ),
    ).toEqual([{ n: 3 }]);

    // Deposits keep arriving while PostgreSQL restarts: every session (and session lock) ends.
    await Promise.all([pg.restart(), deposit(3)]);
    await deposit(3);
    await anvil.mine(2);
    // The test's own pool lost its connections too.
    await db.destroy();
    db = createDb({ url: pg.url });
    expect(
      await eventually(
        () => confirmedEvents(db),
        (r) => Number(r[0]?.n) === 9,
        30_000,
      ),
    ).toEqual([{ n: 9 }]);

    // Each deposit announced exactly once, detected and confirmed.
    const bodies = async (type: string) =>
      (await db('events').where({ type }).pluck('body')).map((b: string) => (JSON.parse(b) as { data: { txHash: string } }).data.txHash);
    expect((await bodies('deposit.detected')).sort()).toEqual([...sent].sort());
    expect((await bodies('deposit.confirmed')).sort()).toEqual([...sent].sort());

    // Exactly one process follows (and it is the lease holder: checked at the end).
    const settle = () =>
      eventually(
        async () => {
          const lease = await db('indexer_leases').where({ chain: 'ethereum', network: 'devnet' }).first('holder');
          return { states: [leadState(a), leadState(b)], holder: String(lease?.holder ?? '') };
        },
        (v) => v.states.filter((x) => x === 'following').length === 1,
        30_000,
      );
    const afterRestart = await settle();
    expect([...afterRestart.states].sort()).toEqual(['following', 'standing by']);
    const leader = afterRestart.states[0] === 'following' ? a : b;
    const standby = leader === a ? b : a;

    // The leader freezes (a VM pause, SIGSTOP) while deposits arrive: the standby takes the chain
    // once the lease expires, and the leader, thawed, finds its epoch gone and stands by.
    leader.child.kill('SIGSTOP');
    await deposit(2);
    await anvil.mine(2);
    expect(
      await eventually(
        () => confirmedEvents(db),
        (r) => Number(r[0]?.n) === 11,
        30_000,
      ),
    ).toEqual([{ n: 11 }]);
    leader.child.kill('SIGCONT');
    await leader.waitFor(/indexer lease lost/);
    await deposit(1);
    await anvil.mine(2);
    expect(
      await eventually(
        () => confirmedEvents(db),
        (r) => Number(r[0]?.n) === 12,
        30_000,
      ),
    ).toEqual([{ n: 12 }]);
    const afterFreeze = await settle();
    expect(afterFreeze.states).toEqual(leader === a ? ['standing by', 'following'] : ['following', 'standing by']);

    // Each deposit announced exactly once, detected and confirmed, across both hand-overs.
    expect((await bodies('deposit.detected')).sort()).toEqual([...sent].sort());
    expect((await bodies('deposit.confirmed')).sort()).toEqual([...sent].sort());

    // Ctrl-C: both exit 0, and nothing they started outlives them.
    const children = [...childPids(a.child.pid as number), ...childPids(b.child.pid as number)];
    a.child.kill('SIGINT');
    b.child.kill('SIGINT');
    expect(await Promise.all([a.exited, b.exited])).toEqual([0, 0]);
    // A pooled connection broken by the restart is never used again. The one exception is the end
    // (COMMIT, or ROLLBACK after a failed statement) of a transaction that was open on it when the
    // server went away: its round fails and is retried; whether one was open at that instant, and
    // at which statement, depends on timing (a COMMIT was seen in a fresh clone's full run).
    expect(`${a.stderr()}${b.stderr()}`).not.toMatch(/(?<!ROLLBACK - |COMMIT; - )Client has encountered a connection error/);
    expect([a.child.pid, b.child.pid, ...children].filter((pid) => pidAlive(pid as number))).toEqual([]);

    // The lease row named the follower each time.
    expect(afterRestart.holder).toContain(`:${leader.child.pid}:`);
    expect(afterFreeze.holder).toContain(`:${standby.child.pid}:`);
  }, 180_000);
});
