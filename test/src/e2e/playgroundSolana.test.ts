import { createTestDatabase, playgroundLoop, type TestDatabase, type WalletdProcess } from '@walletd/test-harness';

/**
 * The README's Solana playground: `walletd serve` with `devnet.chains: ["solana"]` runs litesvm
 * behind the JSON-RPC adapter as solana/localnet; `walletd dev fund --chain solana` pays SOL and
 * mints the local USDC to a deposit address; both deposits are confirmed through the API.
 */
describe('the Solana playground (walletd serve with devnet.chains solana, walletd dev fund)', () => {
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

  it('serves deposits of SOL and USDC funded with walletd dev fund, and stops the engine with the service', async () => {
    const r = await playgroundLoop(t, {
      devnet: 'solana',
      plugin: '@walletd/plugin-solana',
      chain: 'solana',
      network: 'localnet',
      coin: 'SOL',
      token: 'USDC',
    });
    proc = r.proc;
    expect(r.balances).toEqual({ SOL: '2', USDC: '7.5' });
    expect(r.log).toContain('local chain solana/localnet running');
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
    proc = undefined;
  });
});
