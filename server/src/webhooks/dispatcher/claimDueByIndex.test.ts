import { type Db, createDb } from '@walletd/core';
import { createTestDatabase, seedCompany, type TestDatabase } from '@walletd/test-harness';

/**
 * Issue 43 §5 (migration 050): whether a webhook has a due delivery is answered from the pending
 * rows' due-time index, whatever the statistics were when the session's claim plan was built. A
 * dispatcher's first claim usually runs on a nearly empty table; its generic plan then answered
 * the question by walking every row of the webhook in id order (the (webhook_id, id) index),
 * filtering each by status: the buffers of every claim grew with the webhook's delivered and
 * passed-over rows (35,000 per claim beside ten dead receivers in the outbox bench). Counted here
 * in index entries read, not in time.
 */
let t: TestDatabase;
let own: Db;
let hookId: number;

beforeAll(async () => {
  t = await createTestDatabase();
  const s = await seedCompany(t.db);
  [{ id: hookId }] = await t
    .db('webhooks')
    .insert({ company_id: s.companyId, type: 'api', config: { url: 'http://127.0.0.1:9/hook' }, events: ['*'], secret_envelope: {} })
    .returning('id');
  // One connection: the session whose claim plans are built on the first claim and kept.
  own = createDb({ url: t.url, poolMax: 1 });
});
afterAll(async () => {
  await own.destroy();
  await t.drop();
});

const CLAIM = 'select * from walletd_claim_deliveries(27, 60, 16, 1, array[]::int[], 16, null)';

/** `n` delivered rows of the webhook, then one due: the due one comes after them in id order. */
async function addDeliveredThenDue(n: number): Promise<void> {
  await t.db.raw(
    `insert into webhook_deliveries (webhook_id, event_id, event_type, status, attempts, next_attempt_at)
     select ?, gen_random_uuid(), 'deposit.confirmed', 'delivered', 1, null from generate_series(1, ?)`,
    [hookId, n],
  );
  await t.db.raw(
    `insert into webhook_deliveries (webhook_id, event_id, event_type, status, attempts, next_attempt_at)
     values (?, gen_random_uuid(), 'deposit.confirmed', 'pending', 0, now() - interval '1 second')`,
    [hookId],
  );
}

/**
 * The index entries of `webhook_deliveries` one claim reads on `own` (its one connection): this
 * transaction's own counters (pg_stat_get_xact_tuples_returned, a plpgsql function's statements
 * included). Rolled back: nothing stays claimed.
 */
async function claimIndexReads(): Promise<number> {
  await own.raw('begin');
  try {
    await own.raw(CLAIM);
    const { rows } = await own.raw(
      `select sum(pg_stat_get_xact_tuples_returned(indexrelid))::int as n from pg_index where indrelid = 'webhook_deliveries'::regclass`,
    );
    return rows[0].n;
  } finally {
    await own.raw('rollback');
  }
}

it("a claim's index reads do not grow with a webhook's delivered rows", async () => {
  // The session's first claim, on an empty table with fresh statistics: its plans are kept.
  await t.db.raw('analyze webhook_deliveries');
  await claimIndexReads();
  await addDeliveredThenDue(2000);
  const at2000 = await claimIndexReads();
  await t.db.raw(`update webhook_deliveries set status = 'delivered', next_attempt_at = null where status = 'pending'`);
  await addDeliveredThenDue(2000);
  const at4000 = await claimIndexReads();
  // Walking the webhook's rows in id order to the due one reads an index entry per row: before 050,
  // 1,407 and 3,598 here; since, 4 and 11 (the due index's entry of the row delivered in between).
  expect(at2000).toBeLessThan(100);
  expect(at4000).toBeLessThan(100);
});
