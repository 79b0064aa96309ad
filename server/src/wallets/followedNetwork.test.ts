import { DEFAULT_CONFIG } from '@walletd/core';
import { isFollowed } from './followedNetwork';

const config = (devnet: Partial<typeof DEFAULT_CONFIG.devnet>, chains: typeof DEFAULT_CONFIG.chains = []) => ({
  chains,
  devnet: { ...DEFAULT_CONFIG.devnet, ...devnet },
});

// With no chains[], the networks followed are those of the local chains devnet.chains names, as
// their devchains modules say, whether or not this process runs them (an API-only process).
describe('isFollowed with the playground', () => {
  it('follows the network of each local chain of devnet.chains, and no other', () => {
    const c = config({ chains: ['evm', 'solana'] });
    expect(isFollowed(c, 'ethereum', 'devnet')).toBe(true);
    expect(isFollowed(c, 'solana', 'localnet')).toBe(true);
    expect(isFollowed(c, 'ton', 'localnet')).toBe(false);
    expect(isFollowed(c, 'solana', 'mainnet')).toBe(false);
  });

  it('follows none of them when the devnet is off or chains[] is configured', () => {
    expect(isFollowed(config({ enabled: false }), 'ethereum', 'devnet')).toBe(false);
    const configured = config({}, [{ chain: 'ethereum', network: 'sepolia', rpcUrl: 'http://127.0.0.1:1' }]);
    expect(isFollowed(configured, 'ethereum', 'devnet')).toBe(false);
    expect(isFollowed(configured, 'ethereum', 'sepolia')).toBe(true);
  });
});
