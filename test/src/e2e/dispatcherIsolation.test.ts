import { mkdtempSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
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

/** A receiver that accepts every connection, reads what comes and never answers (issue 29). */
async function startTarpit(): Promise<{ url: string; open: () => number; most: () => number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  let most = 0;
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    most = Math.max(most, sockets.size);
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    open: () => sockets.size,
    most: () => most,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/**
 * Issue 29: a receiver that never answers held every slot of the dispatcher (64 connections, each
 * waiting out the timeout), and every other company's deliveries waited behind it. Here two
 * `walletd serve --roles dispatcher` processes share one database; the tarpit's deliveries are
 * older than the healthy receiver's and outnumber both dispatchers' slots together. The healthy
 * receiver must get all its events while no attempt to the tarpit has even ended (the timeout is
 * a minute), and the tarpit must never see more connections than the per-webhook cap.
 */
describe('dispatcher isolation', () => {
  const CONCURRENCY = 16;
  const CAP = 3;
  let t: TestDatabase;
  let healthy: TestReceiver;
  let tarpit: Awaited<ReturnType<typeof startTarpit>>;
  const hex = randomBytes(32).toString('hex');
  const masterKey = new MasterKey(Buffer.from(hex, 'hex'));
  const procs: WalletdProcess[] = [];
  let config: string;

  beforeAll(async () => {
    t = await createTestDatabase();
    healthy = await startReceiver();
    tarpit = await startTarpit();
    const dir = mkdtempSync(join(tmpdir(), 'walletd-isolation-'));
    config = join(dir, 'walletd.json');
    writeFileSync(
      config,
      JSON.stringify({
        bootstrap: false,
        webhooks: {
          allowCidrs: ['127.0.0.0/8'],
          concurrency: CONCURRENCY,
          batchSize: CONCURRENCY,
          maxInFlightPerWebhook: CAP,
          timeoutMs: 60_000,
          leaseMs: 120_000,
        },
      }),
    );
  });
  afterAll(async () => {
    for (const p of procs) p.child.kill('SIGKILL');
    await healthy.close();
    await tarpit.close();
    await t.drop();
  });

  async function company(url: string, n: number): Promise<{ hookId: number; ids: string[] }> {
    const c = await seedWebhookCompany(t.db, masterKey, url);
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push((await recordDeposit(t.db, c.companyId, c.walletId)).envelope.id);
    return { hookId: c.hookId, ids };
  }

  it('a receiver that never answers holds at most its cap of connections, and another company gets every event meanwhile', async () => {
    const stuck = await company(`${tarpit.url}/hook`, 3 * CONCURRENCY);
    const served = await company(`${healthy.url}/hook`, 20);
    for (let i = 0; i < 2; i++) {
      procs.push(spawnWalletd(['serve', '--roles', 'dispatcher', '--config', config], { DATABASE_URL: t.url, WALLETD_MASTER_KEY: hex }));
    }
    await Promise.all(procs.map((p) => p.waitFor(/dispatcher started/)));

    await healthy.waitForRequests(20);
    const delivered = () => t.db('webhook_deliveries').where({ webhook_id: served.hookId, status: 'delivered' }).count('* as n');
    expect(await eventually(delivered, (r) => r[0]?.n === 20)).toEqual([{ n: 20 }]);
    expect(new Set(healthy.requests.map((r) => JSON.parse(r.rawBody).id)).size).toBe(20);

    // Meanwhile not one attempt to the tarpit has ended: the healthy events did not wait for them.
    const ended = await t.db('webhook_deliveries').where({ webhook_id: stuck.hookId }).where('attempts', '>', 0).count('* as n');
    expect(ended).toEqual([{ n: 0 }]);
    // It holds its cap, across both dispatchers, and never more.
    const inFlight = () => t.db('webhook_deliveries').where({ webhook_id: stuck.hookId, leased: true }).count('* as n');
    expect(await eventually(inFlight, (r) => r[0]?.n === CAP)).toEqual([{ n: CAP }]);
    expect(tarpit.most()).toBeLessThanOrEqual(CAP);
    expect(
      await eventually(
        async () => tarpit.open(),
        (n) => n === CAP,
      ),
    ).toBe(CAP);
  });
});
