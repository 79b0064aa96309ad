import {
  createTestDatabase,
  playgroundEvents,
  playgroundExpected,
  playgroundLoop,
  type TestDatabase,
  type TestReceiver,
  type WalletdProcess,
} from '@walletd/test-harness';

/**
 * The README's TON playground: `walletd serve` with `devnet.chains: ["ton"]` runs @ton/sandbox
 * behind the toncenter adapter as ton/localnet; `walletd dev fund --chain ton` sends TON and mints
 * the local USDT jetton to a deposit address; both deposits are confirmed through the API and at a real receiver, and a withdrawal out is
 * confirmed on the engine's chain.
 */
describe('the TON playground (walletd serve with devnet.chains ton, walletd dev fund)', () => {
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

  it('serves deposits of TON and USDT funded with walletd dev fund, a withdrawal out, the events at the receiver, and stops the engine with the service', async () => {
    const r = await playgroundLoop(t, {
      devnet: 'ton',
      plugin: '@walletd/plugin-ton',
      chain: 'ton',
      network: 'localnet',
      coin: 'TON',
      token: 'USDT',
    });
    proc = r.proc;
    rx = r.receiver;
    expect(r.balances).toEqual({ TON: '2', USDT: '7.5' });
    expect(r.withdrawal).toMatchObject({ status: 'confirmed', amount: '0.5' });
    const expected = playgroundExpected('TON', 'USDT');
    expect(await playgroundEvents(r, expected)).toEqual(expected);
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
    proc = undefined;
  }, 240_000);
});
