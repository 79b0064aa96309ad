import { mkdtempSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
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
 * Dispatchers as separate `walletd serve --roles dispatcher` processes on one database: a
 * dispatcher killed with SIGKILL mid-batch loses nothing, and two dispatchers send each attempt once.
 */
describe('dispatcher processes', () => {
  let t: TestDatabase;
  let rx: TestReceiver;
  const hex = randomBytes(32).toString('hex');
  const masterKey = new MasterKey(Buffer.from(hex, 'hex'));
  const procs: WalletdProcess[] = [];
  let config: string;
  let patientConfig: string;

  beforeAll(async () => {
    t = await createTestDatabase();
    rx = await startReceiver();
    const dir = mkdtempSync(join(tmpdir(), 'walletd-disp-'));
    config = join(dir, 'walletd.json');
    writeFileSync(
      config,
      JSON.stringify({ bootstrap: false, webhooks: { allowCidrs: ['127.0.0.0/8'], leaseMs: 3000, timeoutMs: 1000, batchSize: 50 } }),
    );
    // The default 10 s timeout where a test counts attempts: under a loaded full run a 200 sent
    // after a 1 s timeout was a second, legitimate attempt (at-least-once), read as 299 of 300.
    patientConfig = join(dir, 'walletd-patient.json');
    writeFileSync(
      patientConfig,
      JSON.stringify({ bootstrap: false, webhooks: { allowCidrs: ['127.0.0.0/8'], leaseMs: 30_000, timeoutMs: 10_000, batchSize: 50 } }),
    );
  });
  afterAll(async () => {
    for (const p of procs) p.child.kill('SIGKILL');
    await rx.close();
    await t.drop();
  });

  const dispatcher = (configFile = config) => {
    const p = spawnWalletd(['serve', '--roles', 'dispatcher', '--config', configFile], { DATABASE_URL: t.url, WALLETD_MASTER_KEY: hex });
    procs.push(p);
    return p;
  };

  async function company(n: number) {
    const c = await seedWebhookCompany(t.db, masterKey, `${rx.url}/hook`);
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push((await recordDeposit(t.db, c.companyId, c.walletId)).envelope.id);
    return ids;
  }

  it('a dispatcher killed mid-batch loses nothing: another one delivers the same events', async () => {
    const ids = await company(10);
    // The receiver holds every request open; the first dispatcher dies while they are in flight.
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => {
      release = r;
    });
    rx.respond(async (_r, res) => {
      await held;
      res.writeHead(200).end();
    });
    const first = dispatcher();
    await rx.waitForRequests(10);
    first.child.kill('SIGKILL');
    await first.exited;
    release();
    rx.respond((_r, res) => {
      res.writeHead(200).end();
    });
    const second = dispatcher();
    await second.waitFor(/dispatcher started/);
    await rx.waitForRequests(20);
    const delivered = () => t.db('webhook_deliveries').whereIn('event_id', ids).where({ status: 'delivered' }).count('* as n');
    expect(await eventually(delivered, (r) => r[0]?.n === 10)).toEqual([{ n: 10 }]);
    const resent = rx.requests.slice(10).map((r) => JSON.parse(r.rawBody).id as string);
    expect(resent.sort()).toEqual([...ids].sort());
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  it('two dispatchers deliver each attempt exactly once', async () => {
    rx.requests.length = 0;
    rx.respond((_r, res) => {
      res.writeHead(200).end();
    });
    const a = dispatcher(patientConfig);
    const b = dispatcher(patientConfig);
    await Promise.all([a.waitFor(/dispatcher started/), b.waitFor(/dispatcher started/)]);
    const ids = await company(300);
    await rx.waitForRequests(300);
    const once = () => t.db('webhook_deliveries').whereIn('event_id', ids).where({ status: 'delivered', attempts: 1 }).count('* as n');
    expect(await eventually(once, (r) => r[0]?.n === 300)).toEqual([{ n: 300 }]);
    const got = rx.requests.map((r) => JSON.parse(r.rawBody).id as string);
    expect(got).toHaveLength(300);
    expect(new Set(got).size).toBe(300);
    a.child.kill('SIGTERM');
    b.child.kill('SIGTERM');
    await Promise.all([a.exited, b.exited]);
  });
});
