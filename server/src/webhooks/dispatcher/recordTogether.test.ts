import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { MasterKey, createLogger } from '@walletd/core';
import {
  createTestDatabase,
  eventually,
  recordDeposit,
  seedWebhookCompany,
  startReceiver,
  testConfig,
  type TestDatabase,
  type TestReceiver,
} from '@walletd/test-harness';
import { loadPlugins } from '../../platform/plugins';
import { createDispatcher } from './dispatcher';

/**
 * Issue 43 §5: the outcomes of attempts whose answers arrive together are recorded in one
 * statement. The record started at the first answer, so it went alone and the others followed in
 * a second statement (58 of 281 records of a backlog drain were of one row).
 */
describe('answers that arrive together', () => {
  const N = 8;
  let t: TestDatabase;
  let rx: TestReceiver;
  const masterKey = new MasterKey(randomBytes(32));

  beforeAll(async () => {
    t = await createTestDatabase();
    rx = await startReceiver();
  });
  afterAll(async () => {
    await rx.close();
    await t.drop();
  });

  it('are recorded in one statement', async () => {
    const { companyId, walletId, hookId } = await seedWebhookCompany(t.db, masterKey, `${rx.url}/hook`);
    for (let i = 0; i < N; i++) await recordDeposit(t.db, companyId, walletId);
    // Every request is held until all N are open, then all are answered in one go (an empty body:
    // nothing to look up for redaction between the answer and its outcome).
    const open: ServerResponse[] = [];
    rx.respond((_r, res) => {
      open.push(res);
      if (open.length === N) for (const r of open) r.writeHead(200).end();
    });
    const recorded: number[] = [];
    const onQuery = (q: { prepared?: string; bindings?: unknown[] }) => {
      if (q.prepared === 'walletd_record_attempts_with_breaker') recorded.push((q.bindings?.[0] as unknown[] | undefined)?.length ?? 0);
    };
    t.db.on('query', onQuery);
    // Room for all N in one claim: the operator's cap, and `concurrency` twice N (receivers not yet
    // known fast share half of it).
    const config = testConfig({
      webhooks: { allowCidrs: ['127.0.0.0/8'], concurrency: 2 * N, batchSize: 2 * N, maxInFlightPerWebhook: N },
    });
    const dispatcher = createDispatcher({ config, logger: createLogger({ level: 'silent' }), db: t.db, masterKey, plugins: loadPlugins() });
    try {
      dispatcher.start();
      const delivered = () => t.db('webhook_deliveries').where({ webhook_id: hookId, status: 'delivered' }).count('* as n');
      expect(await eventually(delivered, (r) => Number(r[0]?.n) === N, 30_000)).toEqual([{ n: N }]);
    } finally {
      await dispatcher.stop();
      t.db.off('query', onQuery);
    }
    expect(rx.requests).toHaveLength(N);
    expect(recorded).toEqual([N]);
  });
});
