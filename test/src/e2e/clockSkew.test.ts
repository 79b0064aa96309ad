import { existsSync } from 'node:fs';
import { recordEvent } from '@walletd/core';
import {
  call,
  createTestDatabase,
  eventually,
  seedCompany,
  serveWithConfig,
  startReceiver,
  type TestDatabase,
  type TestReceiver,
  type WalletdProcess,
} from '@walletd/test-harness';

const LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';
// Skipped without libfaketime, unless WALLETD_REQUIRE_NODES is set (CI, which installs it): then it fails.
const describeWithFaketime = existsSync(LIBFAKETIME) || process.env.WALLETD_REQUIRE_NODES ? describe : describe.skip;
if (!existsSync(LIBFAKETIME)) console.log('SKIPPED clockSkew: apt-get install faketime');

/**
 * Issue 43 §4: a real `walletd serve` whose host clock lies (libfaketime), on the harness's
 * PostgreSQL, whose clock does not. The test process keeps the true time.
 */
describeWithFaketime('walletd serve with a host clock that lies (faketime)', () => {
  let t: TestDatabase;
  let receiver: TestReceiver;
  let proc: WalletdProcess | undefined;

  beforeEach(async () => {
    t = await createTestDatabase();
    receiver = await startReceiver();
  });
  afterEach(async () => {
    if (proc && proc.child.exitCode === null) {
      proc.child.kill('SIGTERM');
      await proc.exited;
    }
    proc = undefined;
    await receiver.close();
    await t.drop();
  });

  async function serveAt(offset: string): Promise<{ base: string; key: string; companyId: number }> {
    const seeded = await seedCompany(t.db);
    const started = await serveWithConfig(
      t.url,
      { devnet: { enabled: false }, webhooks: { allowCidrs: ['127.0.0.0/8'] } },
      {
        WALLETD_BOOTSTRAP: '0',
        LD_PRELOAD: LIBFAKETIME,
        FAKETIME: offset,
        FAKETIME_DONT_FAKE_MONOTONIC: '1',
      },
    );
    proc = started.proc;
    const hook = await call(started.base, 'POST', '/v1/webhooks', {
      key: seeded.rootKey,
      body: { type: 'api', config: { url: receiver.url }, events: ['*'] },
    });
    expect(hook.status).toBe(201);
    return { base: started.base, key: seeded.rootKey, companyId: seeded.companyId };
  }

  const record = (companyId: number) =>
    recordEvent(t.db, { type: 'deposit.detected', chain: 'ethereum', network: 'devnet', companyId, walletId: 1, data: { n: 1 } });

  it('10 minutes ahead: /readyz says clock_skew, the metric and one log line say how far, deliveries wait unsigned', async () => {
    const { base, companyId } = await serveAt('+600s');
    const ready = await eventually(
      () => call(base, 'GET', '/readyz'),
      (r) => r.body?.reason === 'clock_skew',
    );
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ code: 'unavailable', reason: 'clock_skew' });
    expect(ready.body.message).toMatch(/^the host clock is 60\d s ahead of the database's/);
    const metrics = (await call(base, 'GET', '/metrics')).text;
    const skew = Number(metrics.match(/^walletd_clock_skew_seconds (\S+)$/m)?.[1]);
    expect(skew).toBeGreaterThan(590);
    expect(skew).toBeLessThan(610);

    await record(companyId);
    // Several of the dispatcher's polls (500 ms): the delivery is still pending, never attempted.
    await new Promise((r) => setTimeout(r, 3000));
    expect(receiver.requests).toHaveLength(0);
    expect(await t.db('webhook_deliveries').select('status', 'attempts')).toEqual([{ status: 'pending', attempts: 0 }]);
    const log = (proc as WalletdProcess).stdout() + (proc as WalletdProcess).stderr();
    expect(log.match(/the host clock is \d+ s ahead of the database's/g)).toHaveLength(1);
  });

  it('20 s ahead (within clock.maxSkewMs): ready, and webhook-timestamp is the database time, not the host clock', async () => {
    const { base, companyId } = await serveAt('+20s');
    const ready = await eventually(
      () => call(base, 'GET', '/readyz'),
      (r) => r.status === 200,
    );
    expect(ready.status).toBe(200);
    // The watch has measured the offset once /metrics shows it.
    await eventually(
      async () => (await call(base, 'GET', '/metrics')).text,
      (m) => Number(m.match(/^walletd_clock_skew_seconds (\S+)$/m)?.[1]) > 15,
    );
    await record(companyId);
    const [got] = await receiver.waitForRequests(1);
    const stamped = Number(got?.headers['webhook-timestamp']);
    const trueNow = Date.now() / 1000;
    // The host clock would say trueNow + 20; the database's says trueNow (give or take the delivery's own seconds).
    expect(Math.abs(stamped - trueNow)).toBeLessThan(10);
  });
});
