import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MasterKey } from '@walletd/core';
import {
  createTestDatabase,
  eventually,
  recordDeposit,
  seedWebhookCompany,
  spawnWalletd,
  startReceiver,
  type TestDatabase,
  type TestReceiver,
  type WalletdProcess,
} from '@walletd/test-harness';

/**
 * Issue 43 §6: a dispatcher killed mid-delivery left its leases counting against the webhook's
 * cap for the whole lease (60 s), and the re-sent deliveries said `attempts: 1` though the
 * receiver got two. Here the receiver holds the first process's requests, that process is killed
 * (SIGKILL), a second one starts: it must send everything before the dead one's leases would have
 * ended, and count the lost attempts.
 */
describe('leases of a killed dispatcher', () => {
  const EVENTS = 6;
  const CAP = 2;
  let t: TestDatabase;
  let rx: TestReceiver;
  const hex = randomBytes(32).toString('hex');
  const masterKey = new MasterKey(Buffer.from(hex, 'hex'));
  const procs: WalletdProcess[] = [];
  let config: string;
  const held: ServerResponse[] = [];

  beforeAll(async () => {
    t = await createTestDatabase();
    rx = await startReceiver();
    const dir = mkdtempSync(join(tmpdir(), 'walletd-dead-leases-'));
    config = join(dir, 'walletd.json');
    writeFileSync(
      config,
      JSON.stringify({
        bootstrap: false,
        webhooks: { allowCidrs: ['127.0.0.0/8'], maxInFlightPerWebhook: CAP, timeoutMs: 20_000, leaseMs: 60_000, pollIntervalMs: 100 },
      }),
    );
  });
  afterAll(async () => {
    for (const p of procs) p.child.kill('SIGKILL');
    for (const res of held) res.destroy();
    await rx.close();
    await t.drop();
  });

  const start = async () => {
    const p = spawnWalletd(['serve', '--roles', 'dispatcher', '--config', config], { DATABASE_URL: t.url, WALLETD_MASTER_KEY: hex });
    procs.push(p);
    await p.waitFor(/dispatcher started/);
    return p;
  };

  it('a killed dispatcher’s leases are released at once and its lost attempts counted', async () => {
    const c = await seedWebhookCompany(t.db, masterKey, `${rx.url}/hook`);
    rx.respond((_r, res) => {
      held.push(res);
    });
    const ids: string[] = [];
    for (let i = 0; i < EVENTS; i++) ids.push((await recordDeposit(t.db, c.companyId, c.walletId)).envelope.id);

    const first = await start();
    await rx.waitForRequests(CAP);
    const leased = await eventually(
      () => t.db('webhook_deliveries').where({ webhook_id: c.hookId, leased: true }).whereNotNull('leased_by'),
      (r) => r.length === CAP,
    );
    expect(leased).toHaveLength(CAP);
    const leaseEnds = Math.min(...leased.map((d) => d.next_attempt_at.getTime()));
    first.child.kill('SIGKILL');
    await first.exited;

    rx.respond((_r, res) => {
      res.writeHead(200).end('ok');
    });
    await start();
    const rows = await eventually(
      () => t.db('webhook_deliveries').where({ webhook_id: c.hookId }).orderBy('id'),
      (r) => r.length === EVENTS && r.every((d) => d.status === 'delivered'),
    );
    expect(rows.map((d) => d.status)).toEqual(Array(EVENTS).fill('delivered'));
    // All of it before the dead process's leases would have ended (database time on both sides).
    for (const d of rows) expect(d.updated_at.getTime()).toBeLessThan(leaseEnds);
    // The lost attempts are counted: the receiver got those events twice, and attempts says 2.
    const lost = new Set(leased.map((d) => d.id));
    for (const d of rows) {
      const got = rx.requests.filter((r) => JSON.parse(r.rawBody).id === d.event_id).length;
      expect({ id: d.id, attempts: d.attempts, got }).toEqual({ id: d.id, attempts: lost.has(d.id) ? 2 : 1, got: lost.has(d.id) ? 2 : 1 });
    }
    expect(new Set(rx.requests.map((r) => JSON.parse(r.rawBody).id))).toEqual(new Set(ids));
  });
});
