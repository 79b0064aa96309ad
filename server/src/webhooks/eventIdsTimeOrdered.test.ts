import { recordEvents } from '@walletd/core';
import {
  call,
  createTestDatabase,
  eventually,
  recordDeposit,
  seedCompany,
  startTestApp,
  type TestApp,
  type TestDatabase,
} from '@walletd/test-harness';

let t: TestDatabase;
let app: TestApp;

beforeAll(async () => {
  t = await createTestDatabase();
  // The webhook below points at loopback, which the default allow-list refuses.
  app = await startTestApp(t.db, { webhooks: { allowCidrs: ['127.0.0.0/8'] } });
});
afterAll(async () => {
  await app.close();
  await t.drop();
});

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * Issue 32: random event ids put every new delivery row (and a replay's 2,400 of an hour) at a
 * random place in `webhook_deliveries_by_event (webhook_id, event_id, id)` and the events' primary
 * key, indexes the size of the whole history, so queueing a fixed window grew with the history
 * (the scale bench's replay, 68 ms at 10k transfers, 274 ms at 1M). Time-ordered ids (UUIDv7) are
 * appended. What a receiver sees: ids in the feed's order ascend, and are still UUIDs.
 */
describe('event ids follow time', () => {
  it('the feed serves UUIDv7 ids that ascend in its order, one at a time and in a batch; a replay queues them side by side', async () => {
    const s = await seedCompany(t.db);
    const wallet = (
      await call(app.url, 'POST', '/v1/wallets', { key: s.rootKey, body: { name: 'w', chain: 'ethereum', network: 'sepolia' } })
    ).body.id as number;
    const recorded: string[] = [];
    for (let i = 0; i < 12; i++) recorded.push((await recordDeposit(t.db, s.companyId, wallet)).envelope.id);
    const batch = await t.db.transaction((trx) =>
      recordEvents(
        trx,
        Array.from({ length: 12 }, (_, n) => ({
          type: 'deposit.detected' as const,
          chain: 'ethereum',
          network: 'sepolia',
          companyId: s.companyId,
          walletId: wallet,
          data: { n },
        })),
      ),
    );
    recorded.push(...batch.envelopes.map((e) => e.id));

    const feed = async () =>
      (await call(app.url, 'GET', '/v1/events?limit=100&types=deposit.detected,deposit.confirmed', { key: s.rootKey })).body.events.map(
        (e: { id: string }) => e.id,
      ) as string[];
    const ids = await eventually(feed, (x) => x.length === recorded.length);
    expect(ids).toEqual(recorded);
    expect(ids.filter((id) => !UUID_V7.test(id))).toEqual([]);
    expect([...ids].sort()).toEqual(ids);

    // A replay of the window queues one delivery per event; by delivery id, their event ids ascend
    // too (the rows land next to each other in the by-event index).
    const hook = await call(app.url, 'POST', '/v1/webhooks', {
      key: s.rootKey,
      body: { type: 'api', config: { url: 'http://127.0.0.1:9/hook' }, events: ['*'] },
    });
    expect(hook.status).toBe(201);
    const replay = await call(app.url, 'POST', `/v1/webhooks/${hook.body.id}/replay`, {
      key: s.rootKey,
      body: { since: new Date(Date.now() - 3_600_000).toISOString() },
    });
    expect(replay.status).toBe(202);
    const queued = (await t.db('webhook_deliveries').where({ webhook_id: hook.body.id }).orderBy('id').pluck('event_id')) as string[];
    expect(queued).toEqual(ids);
  });
});
