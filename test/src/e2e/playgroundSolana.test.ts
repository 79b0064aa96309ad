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
 * The README's Solana playground: `walletd serve` with `devnet.chains: ["solana"]` runs litesvm
 * behind the JSON-RPC adapter as solana/localnet; `walletd dev fund --chain solana` pays SOL and
 * mints the local USDC to a deposit address; both deposits are confirmed through the API and at a
 * real receiver, and a withdrawal of SOL out is confirmed on the engine's chain.
 */
describe('the Solana playground (walletd serve with devnet.chains solana, walletd dev fund)', () => {
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

  it('serves deposits of SOL and USDC funded with walletd dev fund, a withdrawal out, the events at the receiver, and stops the engine with the service', async () => {
    const r = await playgroundLoop(t, {
      devnet: 'solana',
      plugin: '@walletd/plugin-solana',
      chain: 'solana',
      network: 'localnet',
      coin: 'SOL',
      token: 'USDC',
    });
    proc = r.proc;
    rx = r.receiver;
    expect(r.balances).toEqual({ SOL: '2', USDC: '7.5' });
    expect(r.withdrawal).toMatchObject({ status: 'confirmed', amount: '0.5' });
    const expected = playgroundExpected('SOL', 'USDC');
    expect(await playgroundEvents(r, expected)).toEqual(expected);
    expect(r.log).toContain('local chain solana/localnet running');
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
    proc = undefined;
  }, 240_000);
});
