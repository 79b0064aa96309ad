import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createTestDatabase,
  describeWithLitecoind,
  playgroundEvents,
  playgroundExpected,
  playgroundLoop,
  type TestDatabase,
  type TestReceiver,
  type WalletdProcess,
} from '@walletd/test-harness';

/**
 * The README's dogecoin playground: `walletd serve` with `devnet.chains: ["dogecoin"]` runs a
 * litecoind regtest node of its own (datadir `.walletd/devchains/litecoind-dogecoin`) followed as
 * dogecoin/regtest; `walletd dev fund --chain dogecoin` has the node's wallet pay a P2PKH deposit
 * address and mines the block; the deposit is confirmed through the API and at a real receiver,
 * and a withdrawal of DOGE out is mined and confirmed. The node stops with the service.
 */
describeWithLitecoind('the dogecoin playground (walletd serve with devnet.chains dogecoin, walletd dev fund)', () => {
  let t: TestDatabase;
  let proc: WalletdProcess | undefined;
  let rx: TestReceiver | undefined;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(async () => {
    proc?.child.kill('SIGTERM');
    await proc?.exited;
    await rx?.close();
    await t?.drop();
  });

  it('serves a DOGE deposit funded with walletd dev fund, a withdrawal out, the events at the receiver; the node stops with the service', async () => {
    const r = await playgroundLoop(t, {
      devnet: 'dogecoin',
      plugin: '@walletd/plugin-utxo',
      chain: 'dogecoin',
      network: 'regtest',
      coin: 'DOGE',
    });
    proc = r.proc;
    rx = r.receiver;
    expect(r.balances).toEqual({ DOGE: '2' });
    expect(r.address).toMatch(/^[mn]/); // P2PKH on regtest (0x6f): dogecoin has no segwit
    expect(r.withdrawal).toMatchObject({ status: 'confirmed', amount: '0.5' });
    const expected = playgroundExpected('DOGE');
    expect(await playgroundEvents(r, expected)).toEqual(expected);
    expect(r.log).toContain('local chain dogecoin/regtest running');
    const { rpcUrl } = JSON.parse(readFileSync(join(r.dataDir, 'devchains', 'dogecoin.json'), 'utf8')) as { rpcUrl: string };
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
    proc = undefined;
    await expect(fetch(`http://${new URL(rpcUrl).host}/`, { method: 'POST' })).rejects.toThrow();
  }, 300_000);
});
