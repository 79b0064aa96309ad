import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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
 * The README's devnet loop ("Try the whole loop on the devnet") through the same local-chain
 * path as the others: `walletd serve` with `devnet.chains: ["evm"]` (the default) runs anvil as
 * ethereum/devnet from the devchains module; `walletd dev fund --chain evm` pays ETH and mints
 * the devnet USDC; both deposits are confirmed through the API and at a real receiver, and a
 * withdrawal of ETH out is confirmed.
 */
describe('the EVM devnet playground (walletd serve with devnet.chains evm, walletd dev fund)', () => {
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

  it('serves deposits of ETH and USDC funded with walletd dev fund, a withdrawal out, the events at the receiver, and stops anvil with the service', async () => {
    const r = await playgroundLoop(t, {
      devnet: 'evm',
      plugin: '@walletd/plugin-evm',
      chain: 'ethereum',
      network: 'devnet',
      coin: 'ETH',
      token: 'USDC',
    });
    proc = r.proc;
    rx = r.receiver;
    expect(r.balances).toEqual({ ETH: '2', USDC: '7.5' });
    expect(r.withdrawal).toMatchObject({ status: 'confirmed', amount: '0.5' });
    const expected = playgroundExpected('ETH', 'USDC');
    expect(await playgroundEvents(r, expected)).toEqual(expected);
    expect(r.log).toContain('local chain ethereum/devnet running (evm)');
    const file = join(r.dataDir, 'devchains', 'evm.json');
    const { rpcUrl } = JSON.parse(readFileSync(file, 'utf8')) as { rpcUrl: string };
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
    proc = undefined;
    // No other walletd process used it: anvil stopped, and its description with it.
    await expect(fetch(rpcUrl, { method: 'POST' })).rejects.toThrow();
    expect(existsSync(file)).toBe(false);
  }, 240_000);
});
