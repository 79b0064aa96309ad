import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { type ChainSettings, MasterKey, createLogger, createMetrics, ensureMonthPartitions } from '@walletd/core';
import { createDetectPool, type DetectPool, type Follower } from '@walletd/indexer';
import { archiveMonth, checkLedger, compareLedger } from '@walletd/server';
import {
  type Anvil,
  type Seeded,
  type TestApp,
  type TestDatabase,
  call,
  createTestDatabase,
  eventually,
  runWalletdAsync,
  seedCompany,
  startAnvil,
  startTestApp,
  testFollower,
} from '@walletd/test-harness';

const ETH = 10n ** 18n;
const KEY = { chain: 'ethereum', network: 'devnet' };

/**
 * Issue 32, retention: `walletd archive-month` takes an old month of transfers and events out
 * (detached in one transaction with the month's totals recorded) and the balance ledger's check
 * stays exact: no drift, balances unchanged, a transfer of the archived month seen again is not
 * credited again, a month still changing is refused, and a second run does nothing again.
 */
describe('walletd archive-month', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let pool: DetectPool;
  let app: TestApp;
  let s: Seeded;
  let follower: Follower;
  let settings: ChainSettings;
  let walletId: number;
  let a: string;
  let b: string;
  const secret = randomBytes(32);
  const recipient = '0x000000000000000000000000000000000000bEEF';
  const api = (method: string, path: string, body?: unknown) => call(app.url, method, `/v1${path}`, { key: s.rootKey, body });
  const round = async (blocks = 1) => {
    await anvil.mine(blocks);
    await follower.tick();
  };
  const archive = (...args: string[]) =>
    runWalletdAsync(['archive-month', ...args], {
      DATABASE_URL: t.url,
      WALLETD_MASTER_KEY: secret.toString('hex'),
      WALLETD_DATA_DIR: mkdtempSync(join(tmpdir(), 'walletd-archive-')),
    });
  const count = async (q: { count: (c: string) => PromiseLike<{ n?: unknown }[]> }) => Number((await q.count('* as n'))[0]?.n);
  const balances = async () => (await api('GET', `/wallets/${walletId}/balances`)).body.balances;
  const attached = async (table: string) =>
    (await t.db.raw(`select inhrelid::regclass::text as name from pg_inherits where inhparent = ?::regclass order by 1`, [table])).rows.map(
      (r: { name: string }) => r.name,
    );

  beforeAll(async () => {
    t = await createTestDatabase();
    for (const table of ['transfers', 'events'] as const) await ensureMonthPartitions(t.db, table, { from: new Date('2025-01-01') });
    anvil = await startAnvil();
    pool = createDetectPool(1);
    settings = { ...KEY, rpcUrl: anvil.url, confirmations: 2, startBlock: 0 };
    app = await startTestApp(
      t.db,
      { chains: [settings], rateLimit: { writesPerKeyPerMinute: 1000 }, webhooks: { allowCidrs: ['127.0.0.0/8'] } },
      new MasterKey(secret),
    );
    follower = testFollower(t.db, pool, settings);
    s = await seedCompany(t.db);
    walletId = (await api('POST', '/wallets', { name: 'hot', chain: 'ethereum', network: 'devnet' })).body.id;
    a = (await api('POST', `/wallets/${walletId}/addresses`)).body.address;
    b = (await api('POST', `/wallets/${walletId}/addresses`)).body.address;
  });
  afterAll(async () => {
    await app.close();
    await pool.close();
    await anvil.stop();
    await t.drop();
  });

  it('archives a month of confirmed deposits and a payout: no drift, balances unchanged, nothing credited twice, a retry does nothing', async () => {
    // January 2025: two confirmed deposits and a confirmed payout from `a` (rows moved back as if recorded then).
    await follower.tick();
    await anvil.send(a, 2n * ETH);
    await anvil.send(b, 1n * ETH);
    await round(2);
    const paid = await api('POST', `/wallets/${walletId}/withdrawals`, {
      asset: 'ETH',
      toAddress: recipient,
      amount: '0.5',
      fromAddress: a,
      idempotencyKey: 'p-1',
    });
    expect(paid.status).toBe(201);
    expect((await api('POST', `/withdrawals/${paid.body.id}/broadcast`)).status).toBe(200);
    await round(3);
    expect((await api('GET', `/withdrawals/${paid.body.id}`)).body.status).toBe('confirmed');
    const january = (await t.db('transfers').select('tx_hash')).map((r) => r.tx_hash as string);
    expect(january.length).toBeGreaterThanOrEqual(2);
    await t.db.raw(`update transfers set created_at = '2025-01-15T00:00:00Z'`);
    await t.db.raw(`update events set created_at = '2025-01-15T00:00:00Z'`);
    // February 2025: a deposit still pending.
    await anvil.send(a, 3n * ETH);
    await follower.tick();
    await t.db.raw(`update transfers set created_at = '2025-02-10T00:00:00Z' where status = 'pending'`);
    expect(await count(t.db('transfers').where({ status: 'pending' }))).toBe(1);
    expect(await compareLedger(t.db, KEY)).toEqual([]);
    const before = await balances();

    // Refused: a month still changing, and the current one; nothing detached, nothing recorded.
    const pending = await archive('--month', '2025-02');
    expect(pending.status).toBe(1);
    expect(pending.stderr).toContain('month 2025-02 still holds 1 pending transfer(s)');
    const now = new Date();
    const current = `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
    const recent = await archive('--month', current);
    expect(recent.status).toBe(1);
    expect(recent.stderr).toContain(`month ${current} is too recent`);
    expect(await attached('transfers')).toContain('transfers_y2025m02');
    expect(await count(t.db('archived_months'))).toBe(0);

    const done = await archive('--month', '2025-01');
    expect(done.status).toBe(0);
    expect(done.json).toMatchObject({
      month: '2025-01',
      tables: [
        { table: 'transfers', partition: 'transfers_y2025m01', outcome: 'archived', rows: january.length },
        { table: 'events', partition: 'events_y2025m01', outcome: 'archived' },
      ],
    });
    expect(done.json.totals).toBeGreaterThan(0);
    expect(done.stderr).toContain('pg_dump -Fc -t transfers_y2025m01 -t events_y2025m01');
    expect(await attached('transfers')).not.toContain('transfers_y2025m01');
    expect(await attached('events')).not.toContain('events_y2025m01');
    expect(await count(t.db('transfers').whereIn('tx_hash', january))).toBe(0);

    // The check adds the archived totals: no drift, the gauge at 0; balances as they were.
    const metrics = createMetrics();
    const quiet = new Writable({ write: (_c, _e, done) => done() });
    expect(await checkLedger({ db: t.db, logger: createLogger({ destination: quiet }), metrics }, KEY)).toEqual([]);
    expect(await metrics.registry.metrics()).toContain('walletd_balance_ledger_drifts{chain="ethereum",network="devnet"} 0');
    expect(await balances()).toEqual(before);

    // A rescan from genesis sees January's transfers again: their keys are known, nothing is credited again.
    await follower.rescanFrom(0n);
    await testFollower(t.db, pool, settings).tick();
    expect(await count(t.db('transfers').whereIn('tx_hash', january))).toBe(0);
    expect(await balances()).toEqual(before);
    expect(await compareLedger(t.db, KEY)).toEqual([]);

    // Run again (a retry after a lost answer): the month is recorded, nothing is counted twice.
    const again = await archive('--month', '2025-01');
    expect(again.status).toBe(0);
    expect(again.json).toMatchObject({ totals: 0, tables: [{ outcome: 'already' }, { outcome: 'already' }] });
    expect(await compareLedger(t.db, KEY)).toEqual([]);

    // February's deposit final, its month goes too; the check still agrees.
    await round(2);
    expect(await count(t.db('transfers').where({ status: 'pending' }))).toBe(0);
    const february = await archive('--month', '2025-02', '--tables', 'transfers');
    expect(february.status).toBe(0);
    expect(february.json.tables).toEqual([expect.objectContaining({ table: 'transfers', outcome: 'archived' })]);
    expect(await attached('events')).toContain('events_y2025m02');
    expect(await compareLedger(t.db, KEY)).toEqual([]);
  });

  it('chooses the payout source from the ledger, not from the transfers kept: an archived deposit still pays', async () => {
    // Every deposit is archived now: `a` holds 4.5 ETH less a fee, `b` 1 ETH. Summing the transfers
    // kept, every address looked empty (`a` even negative by its payout) and a 2 ETH payout came
    // from an address that cannot pay it (422); the ledger knows `a` has the room.
    const big = await api('POST', `/wallets/${walletId}/withdrawals`, {
      asset: 'ETH',
      toAddress: recipient,
      amount: '2',
      idempotencyKey: 'p-2',
    });
    expect(big.status).toBe(201);
    expect(big.body.fromAddress.toLowerCase()).toBe(a.toLowerCase());
    expect(await compareLedger(t.db, KEY)).toEqual([]);
  });

  it('refuses an events month with a delivery pending (and a malformed or hand-detached month); a check racing the archive sees it whole', async () => {
    // March 2025: a confirmed deposit whose events a webhook is still to be sent (no dispatcher runs here).
    const hook = await api('POST', '/webhooks', { type: 'api', config: { url: 'http://127.0.0.1:9/hook' }, events: ['*'] });
    expect(hook.status).toBe(201);
    await anvil.send(b, 1n * ETH);
    await round(2);
    await t.db.raw(`update transfers set created_at = '2025-03-10T00:00:00Z' where created_at >= '2025-04-01Z'`);
    await t.db.raw(`update events set created_at = '2025-03-10T00:00:00Z' where created_at >= '2025-04-01Z'`);
    expect(await count(t.db('transfers').where('created_at', '2025-03-10T00:00:00Z'))).toBe(1);
    expect(await compareLedger(t.db, KEY)).toEqual([]);

    const busy = await archive('--month', '2025-03');
    expect(busy.status).toBe(1);
    expect(busy.stderr).toMatch(/month 2025-03 has [0-9]+ webhook deliveries still pending/);
    // The transfers month checked first went back with the refusal: one transaction.
    expect(await attached('transfers')).toContain('transfers_y2025m03');
    expect(await count(t.db('archived_months').where({ month: '2025-03-01' }))).toBe(0);

    const malformed = await archive('--month', '2025-13');
    expect(malformed.status).toBe(1);
    expect(malformed.stderr).toContain('month must be YYYY-MM (e.g. 2025-01), got "2025-13"');
    await t.db.raw('alter table transfers detach partition transfers_y2025m04');
    const byHand = await archive('--month', '2025-04', '--tables', 'transfers');
    expect(byHand.status).toBe(1);
    expect(byHand.stderr).toContain('transfers_y2025m04 is not an attached partition of transfers and walletd has not archived it');

    // A ledger check that starts while the archive waits for its lock waits too, and then sees
    // the month's totals with its detach: never the one without the other.
    const holder = await t.db.transaction();
    await holder.raw('lock table transfers in access share mode');
    await expect(archiveMonth(t.db, { month: '2025-03', tables: ['transfers'], lockTimeoutMs: 100 })).rejects.toMatchObject({
      code: 'unavailable',
      message: 'transfers stayed in use for 100 ms (lock_timeout): nothing was changed; run it again',
    });
    const waiting = () =>
      eventually(
        async () =>
          Number((await t.db.raw(`select count(*) from pg_locks where relation = 'transfers'::regclass and not granted`)).rows[0].count),
        (n) => n > 0,
      );
    const archiving = archiveMonth(t.db, { month: '2025-03', tables: ['transfers'], lockTimeoutMs: 60_000 });
    expect(await waiting()).toBe(1);
    const checking = compareLedger(t.db, KEY);
    expect(await eventually(waiting, (n) => n > 1)).toBe(2);
    await holder.commit();
    expect((await archiving).tables).toEqual([expect.objectContaining({ table: 'transfers', outcome: 'archived' })]);
    expect(await checking).toEqual([]);
    expect(await compareLedger(t.db, KEY)).toEqual([]);
  });

  it('lets reads of the table go on while the month is summed, and holds writes until the detach (issue 48 §5)', async () => {
    // May 2025: a confirmed deposit, its transfer moved into the month.
    await anvil.send(a, 2n * ETH);
    await round(2);
    await t.db.raw(`update transfers set created_at = '2025-05-10T00:00:00Z' where created_at >= '2025-06-01Z'`);
    expect(await count(t.db('transfers').where('created_at', '2025-05-10T00:00:00Z'))).toBe(1);
    const before = await balances();

    // The month's sum joins addresses: a lock held on it stops the archive in the middle of its sum.
    const blocker = await t.db.transaction();
    await blocker.raw('lock table addresses in access exclusive mode');
    const archiving = archiveMonth(t.db, { month: '2025-05', tables: ['transfers'], lockTimeoutMs: 60_000 });
    await eventually(
      async () =>
        Number((await t.db.raw(`select count(*) from pg_locks where relation = 'addresses'::regclass and not granted`)).rows[0].count),
      (n) => n > 0,
    );
    const within = (ms: number, sql: string): Promise<{ rows: { count?: string }[] }> =>
      t.db.transaction(async (trx) => {
        await trx.raw(`set local lock_timeout = ${ms}`);
        return (await trx.raw(sql)) as { rows: { count?: string }[] };
      });
    // A read answers at once (under ACCESS EXCLUSIVE it waited for the whole sum)...
    expect(Number((await within(2_000, 'select count(*) from transfers')).rows[0]?.count)).toBeGreaterThan(0);
    // ...and a write waits: nothing can change the month between its sum and its detach.
    await expect(
      within(200, `update transfers set updated_at = updated_at where created_at = '2025-05-10T00:00:00Z'`),
    ).rejects.toMatchObject({
      code: '55P03',
    });
    await blocker.commit();
    expect((await archiving).tables).toEqual([
      expect.objectContaining({ table: 'transfers', partition: 'transfers_y2025m05', outcome: 'archived', rows: 1 }),
    ]);
    expect(await attached('transfers')).not.toContain('transfers_y2025m05');
    expect(await compareLedger(t.db, KEY)).toEqual([]);
    expect(await balances()).toEqual(before);
  });
});
