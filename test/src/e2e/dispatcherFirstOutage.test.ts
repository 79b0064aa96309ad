import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MasterKey } from '@walletd/core';
import { createWebhook, DestinationPolicy } from '@walletd/server';
import {
  createTestDatabase,
  recordDeposit,
  seedCompany,
  spawnWalletd,
  startReceiver,
  startTarpit,
  type Tarpit,
  type TestDatabase,
  type TestReceiver,
  type WalletdProcess,
} from '@walletd/test-harness';

/**
 * Issue 43 §1: a receiver that goes dead (accepts, never answers) delayed a healthy receiver of
 * the same events by the dead one's whole timeout while its first attempts hung, before its
 * breaker opened. Here five tarpits are there from the first event, every event goes to each webhook,
 * paced, under the default dispatcher settings (16 of 64 slots per webhook), and the timeout is a minute: the healthy
 * receiver must get every event while the tarpits' first attempts still hang (none has ended).
 */
describe('dispatcher first outage', () => {
  const EVENTS = 40;
  let t: TestDatabase;
  let healthy: TestReceiver;
  // Five receivers going dead at once: with the default cap (16 of 64 slots), four fill a
  // dispatcher's slots until their first attempts time out.
  const DEAD = 5;
  const tarpits: Tarpit[] = [];
  const hex = randomBytes(32).toString('hex');
  const masterKey = new MasterKey(Buffer.from(hex, 'hex'));
  let proc: WalletdProcess | undefined;
  let config: string;

  beforeAll(async () => {
    t = await createTestDatabase();
    healthy = await startReceiver();
    for (let i = 0; i < DEAD; i++) tarpits.push(await startTarpit());
    const dir = mkdtempSync(join(tmpdir(), 'walletd-first-outage-'));
    config = join(dir, 'walletd.json');
    writeFileSync(
      config,
      JSON.stringify({ bootstrap: false, webhooks: { allowCidrs: ['127.0.0.0/8'], timeoutMs: 60_000, leaseMs: 120_000 } }),
    );
  });
  afterAll(async () => {
    proc?.child.kill('SIGKILL');
    await healthy.close();
    for (const tp of tarpits) await tp.close();
    await t.drop();
  });

  it('five fresh dead receivers beside a healthy one: the healthy one gets every event while the dead ones’ first attempts hang', async () => {
    const s = await seedCompany(t.db);
    const [w] = await t
      .db('wallets')
      .insert({ company_id: s.companyId, name: 'w', chain: 'ethereum', network: 'sepolia', secret_envelope: {} })
      .returning('id');
    const ctx = { companyId: s.companyId, keyId: 1, walletIds: null } as never;
    const deps = { db: t.db, masterKey, policy: new DestinationPolicy(['127.0.0.0/8']) };
    // The dead ones first: the lower ids, so they are first in every claim's turns.
    const dead: number[] = [];
    for (const tp of tarpits)
      dead.push((await createWebhook(deps, ctx, { type: 'api', config: { url: `${tp.url}/hook` }, events: ['*'] })).id);
    await createWebhook(deps, ctx, { type: 'api', config: { url: `${healthy.url}/hook` }, events: ['*'] });
    proc = spawnWalletd(['serve', '--roles', 'dispatcher', '--config', config], { DATABASE_URL: t.url, WALLETD_MASTER_KEY: hex });
    await proc.waitFor(/dispatcher started/);

    const ids: string[] = [];
    for (let i = 0; i < EVENTS; i++) {
      ids.push((await recordDeposit(t.db, s.companyId, w.id)).envelope.id);
      // Each event waits for the healthy receiver's delivery of it (causal order, no clock).
      await healthy.waitForRequests(i + 1);
    }
    expect(new Set(healthy.requests.map((r) => JSON.parse(r.rawBody).id))).toEqual(new Set(ids));
    // Every tarpit was tried and none of those attempts has ended yet.
    for (const tp of tarpits) expect(tp.accepted()).toBeGreaterThan(0);
    const ended = await t.db('webhook_deliveries').whereIn('webhook_id', dead).where('attempts', '>', 0).count('* as n');
    expect(ended).toEqual([{ n: 0 }]);
  });
});
