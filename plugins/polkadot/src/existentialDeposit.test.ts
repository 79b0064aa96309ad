import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { constantValue } from './reader';
import { registryFor } from './runtimeRegistry';

const fixture = JSON.parse(
  readFileSync(join(__dirname, '..', '..', '..', 'test', 'fixtures', 'polkadot', 'asset-hub-polkadot-metadata-1001002.json'), 'utf8'),
).data as { metadataHex: string };

/**
 * The existential deposit walletd keeps on a source and adds to a top-up is the runtime's
 * `Balances.ExistentialDeposit` constant, read the way the reader reads it (chopsticks proves the
 * same on a running runtime in polkadotSweeps.test.ts). Here the Polkadot Asset Hub figure the
 * docs/guide/sweeps-and-gas.md gives: 0.01 DOT.
 */
describe('existential deposit from the runtime', () => {
  it('Polkadot Asset Hub (statemint 1001002): 100,000,000 planck, 0.01 DOT at 10 decimals', () => {
    const registry = registryFor('statemint-1001002-ed-test', fixture.metadataHex);
    expect(constantValue(registry, 'Balances', 'ExistentialDeposit')).toBe(100_000_000n);
    expect(100_000_000n * 100n).toBe(10n ** 10n); // 0.01 of one DOT (10^10 planck)
  });
});
