import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Anvil,
  type TestDatabase,
  type WalletdProcess,
  call,
  createTestDatabase,
  eventually,
  freePort,
  seedCompany,
  spawnWalletd,
  startAnvil,
  creditAddress,
} from '@walletd/test-harness';

/**
 * The worst moment to die: `walletd serve` is killed with SIGKILL after the node accepted the
 * signed transaction and before the process recorded it. A JSON-RPC proxy in front of anvil does
 * the killing, at exactly that point, with no hook in walletd. After a restart nothing is sent
 * twice, the broadcast is announced once, and the withdrawal still confirms.
 */
describe('a withdrawal survives kill -9 between sending and recording', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let proxy: Server;
  let proxyUrl: string;
  let victim: WalletdProcess | null = null;
  const procs: WalletdProcess[] = [];
  let sends = 0;
  let config: string;
  const hex = randomBytes(32).toString('hex');
  const recipient = '0x000000000000000000000000000000000000dEaD';

  beforeAll(async () => {
    t = await createTestDatabase();
    anvil = await startAnvil();
    proxy = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = Buffer.concat(chunks).toString('utf8');
      const upstream = await fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const answer = await upstream.text();
      if (body.includes('eth_sendRawTransaction')) {
        sends++;
        if (victim) {
          // The node has the transaction; the sender dies before it hears back.
          victim.child.kill('SIGKILL');
          victim = null;
          req.socket.destroy();
          return;
        }
      }
      res.setHeader('content-type', 'application/json');
      res.end(answer);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const dir = mkdtempSync(join(tmpdir(), 'walletd-crash-'));
    config = join(dir, 'walletd.json');
    writeFileSync(
      config,
      JSON.stringify({
        bootstrap: false,
        devnet: { enabled: false },
        chains: [{ chain: 'ethereum', network: 'devnet', rpcUrl: proxyUrl, confirmations: 1, startBlock: 0, pollIntervalMs: 200 }],
      }),
    );
  });
  afterAll(async () => {
    for (const p of procs) p.child.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
    proxy.closeAllConnections();
    await new Promise<void>((r) => proxy.close(() => r()));
    await anvil.stop();
    await t.drop();
  });

  const serve = async (roles: string) => {
    const port = await freePort();
    const p = spawnWalletd(['serve', '--roles', roles, '--config', config], {
      DATABASE_URL: t.url,
      WALLETD_MASTER_KEY: hex,
      PORT: String(port),
      HOST: '127.0.0.1',
    });
    procs.push(p);
    await p.waitFor(/API listening/);
    return { p, base: `http://127.0.0.1:${port}` };
  };

  it('sends once, announces once and confirms after the restart', async () => {
    const s = await seedCompany(t.db);
    const first = await serve('api');
    const api = (base: string, method: string, path: string, body?: unknown) => call(base, method, `/v1${path}`, { key: s.rootKey, body });
    const walletId = (await api(first.base, 'POST', '/wallets', { name: 'hot', chain: 'ethereum', network: 'devnet' })).body.id;
    const source = (await api(first.base, 'POST', `/wallets/${walletId}/addresses`)).body.address;
    await anvil.send(source, 10n ** 18n);
    // Credited as the indexer would credit it: this first process serves the API only.
    const funded = await t.db('addresses').where({ wallet_id: walletId, address: source }).first('id', 'address');
    await creditAddress(t.db, funded, 'ethereum:devnet:eth', 10n ** 18n);
    const nonceBefore = Number(BigInt(await anvil.rpc<string>('eth_getTransactionCount', [source, 'latest'])));
    const prepared = await api(first.base, 'POST', `/wallets/${walletId}/withdrawals`, {
      asset: 'ETH',
      toAddress: recipient,
      amount: '0.125',
      idempotencyKey: 'crash-1',
    });
    expect(prepared.status).toBe(201);

    victim = first.p;
    await expect(api(first.base, 'POST', `/withdrawals/${prepared.body.id}/broadcast`)).rejects.toThrow();
    await first.p.exited;
    // The node has it; walletd recorded the signature (before sending) but not the broadcast.
    const row = await t.db('withdrawals').where({ id: prepared.body.id }).first('status', 'tx_hash');
    expect(row.status).toBe('signed');
    expect((await anvil.receipt(row.tx_hash)).status).toBe('0x1');
    expect(await t.db('events').where({ type: 'withdrawal.broadcast' }).count({ n: '*' })).toEqual([{ n: 0 }]);

    // Restart with the indexer: the tracker reconciles by hash; the client's retry sends nothing.
    const second = await serve('api,indexer');
    const retry = await api(second.base, 'POST', `/withdrawals/${prepared.body.id}/broadcast`);
    expect(retry.status).toBe(200);
    expect(retry.body.txHash).toBe(row.tx_hash);
    await anvil.mine(1);
    const done = await eventually(
      async () => (await api(second.base, 'GET', `/withdrawals/${prepared.body.id}`)).body,
      (w) => w.status === 'confirmed',
    );
    expect(done.history.map((h: { status: string }) => h.status)).toEqual(['prepared', 'signed', 'broadcast', 'confirmed']);
    expect(sends).toBe(1);
    expect(Number(BigInt(await anvil.rpc<string>('eth_getTransactionCount', [source, 'latest'])))).toBe(nonceBefore + 1);
    const types = (await t.db('events').whereLike('type', 'withdrawal.%').orderBy('seq').pluck('type')) as string[];
    expect(types).toEqual(['withdrawal.broadcast', 'withdrawal.confirmed']);
  });
});
