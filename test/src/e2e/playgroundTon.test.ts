import { createTestDatabase, playgroundLoop, type TestDatabase, type WalletdProcess } from '@walletd/test-harness';

/**
 * The README's TON playground: `walletd serve` with `devnet.chains: ["ton"]` runs @ton/sandbox
 * behind the toncenter adapter as ton/localnet; `walletd dev fund --chain ton` sends TON and mints
 * the local USDT jetton to a deposit address; both deposits are confirmed through the API.
 */
describe('the TON playground (walletd serve with devnet.chains ton, walletd dev fund)', () => {
  let t: TestDatabase;
  let proc: WalletdProcess | undefined;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(async () => {
    proc?.child.kill('SIGTERM');
    await proc?.exited;
    await t?.drop();
  });

  it('serves deposits of TON and USDT funded with walletd dev fund, and stops the engine with the service', async () => {
    const r = await playgroundLoop(t, {
      devnet: 'ton',
      plugin: '@walletd/plugin-ton',
      chain: 'ton',
      network: 'localnet',
      coin: 'TON',
      token: 'USDT',
    });
    proc = r.proc;
    expect(r.balances).toEqual({ TON: '2', USDT: '7.5' });
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
    proc = undefined;
  });
});
