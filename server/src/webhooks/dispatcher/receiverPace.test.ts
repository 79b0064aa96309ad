import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { MasterKey, createLogger } from '@walletd/core';
import {
  call,
  createTestDatabase,
  eventually,
  recordDeposit,
  seedCompany,
  startReceiver,
  startTestApp,
  testConfig,
  type TestApp,
  type TestDatabase,
  type TestReceiver,
} from '@walletd/test-harness';
import { loadPlugins } from '../../platform/plugins';
import { createDispatcher, type Dispatcher } from './dispatcher';
import { ReceiverPace, SLOW_ATTEMPT_MS } from './receiverPace';

describe('ReceiverPace', () => {
  it('counts a receiver fast only after a 2xx within the slow mark, and not while one of its attempts is slow', () => {
    const pace = new ReceiverPace();
    expect(pace.isFast(1)).toBe(false);
    pace.ended(1, true, 5, false);
    expect(pace.isFast(1)).toBe(true);
    pace.turnedSlow(1);
    expect(pace.isFast(1)).toBe(false);
    pace.ended(1, true, 3, false);
    expect(pace.isFast(1)).toBe(false);
    pace.ended(1, true, SLOW_ATTEMPT_MS + 1, true);
    expect(pace.isFast(1)).toBe(false);
    pace.ended(1, true, 2, false);
    expect(pace.isFast(1)).toBe(true);
    pace.ended(1, false, 2, false);
    expect(pace.isFast(1)).toBe(false);
    expect(pace.isFast(2)).toBe(false);
  });
});

/**
 * Issue 43 §5: the per-webhook cap (a quarter of `concurrency` by default) also held one busy,
 * healthy receiver to a quarter of the slots, so its backlog drained in small rounds. A receiver
 * that answers fast may fill every free slot; a cap the operator set still holds.
 */
describe('a fast receiver fills the free slots', () => {
  const CONCURRENCY = 32;
  const BACKLOG = 3 * CONCURRENCY;
  let t: TestDatabase;
  let app: TestApp;
  let rx: TestReceiver;
  const masterKey = new MasterKey(randomBytes(32));
  const plugins = loadPlugins();

  beforeAll(async () => {
    t = await createTestDatabase();
    app = await startTestApp(t.db, { webhooks: { allowCidrs: ['127.0.0.0/8'] } }, masterKey);
    rx = await startReceiver();
  });
  afterAll(async () => {
    await rx.close();
    await app.close();
    await t.drop();
  });

  /**
   * The first request is answered at once (the receiver shows it is fast); later ones are held
   * until `release` of them are open together, or `holdMs` pass, then all open ones are answered.
   * Returns the most requests that were open at once.
   */
  async function drain(release: number, holdMs: number, maxInFlightPerWebhook?: number): Promise<number> {
    const s = await seedCompany(t.db);
    const walletId = (
      await call(app.url, 'POST', '/v1/wallets', { key: s.rootKey, body: { name: 'w', chain: 'ethereum', network: 'sepolia' } })
    ).body.id;
    const hook = await call(app.url, 'POST', '/v1/webhooks', {
      key: s.rootKey,
      body: { type: 'api', config: { url: `${rx.url}/hook` }, events: ['*'] },
    });
    let open: ServerResponse[] = [];
    let most = 0;
    let timer: NodeJS.Timeout | undefined;
    const answerAll = () => {
      clearTimeout(timer);
      timer = undefined;
      for (const res of open) res.writeHead(200).end('ok');
      open = [];
    };
    rx.requests.length = 0;
    rx.respond((_r, res, index) => {
      if (index === 0) return void res.writeHead(200).end('ok');
      open.push(res);
      most = Math.max(most, open.length);
      if (open.length >= release) answerAll();
      else timer ??= setTimeout(answerAll, holdMs);
    });
    const first = await recordDeposit(t.db, s.companyId, walletId);
    const config = testConfig({
      webhooks: { allowCidrs: ['127.0.0.0/8'], concurrency: CONCURRENCY, batchSize: CONCURRENCY, maxInFlightPerWebhook },
    });
    const dispatcher: Dispatcher = createDispatcher({ config, logger: createLogger({ level: 'silent' }), db: t.db, masterKey, plugins });
    try {
      // The first delivery alone, answered at once; then the backlog.
      expect(await dispatcher.runOnce()).toBe(1);
      expect(JSON.parse(rx.requests[0]?.rawBody ?? '{}').id).toBe(first.envelope.id);
      for (let i = 0; i < BACKLOG; i++) await recordDeposit(t.db, s.companyId, walletId);
      dispatcher.start();
      const delivered = () => t.db('webhook_deliveries').where({ webhook_id: hook.body.id, status: 'delivered' }).count('* as n');
      expect(await eventually(delivered, (r) => Number(r[0]?.n) === BACKLOG + 1, 30_000)).toEqual([{ n: BACKLOG + 1 }]);
    } finally {
      await dispatcher.stop();
      clearTimeout(timer);
    }
    return most;
  }

  it('takes more than the default cap (a quarter of the slots) once the receiver has answered fast', async () => {
    // Before: at most CONCURRENCY / 4 = 8 open at once, each group waiting out the hold.
    expect(await drain(CONCURRENCY, 3000)).toBe(CONCURRENCY);
  });

  it('keeps a cap the operator set, however fast the receiver', async () => {
    // Each group is held 300 ms (never slow), so only the cap bounds how many are open at once.
    expect(await drain(Number.POSITIVE_INFINITY, 300, 5)).toBe(5);
  });
});
