import { createEvmPlugin } from '@walletd/plugin-evm';
import { createTonPlugin } from '@walletd/plugin-ton';
import { driftOf, knownCauses } from './driftBand';

// The band a chain tolerates is what its plugin declares (TON: storage fees).
const evm = createEvmPlugin();
const ton = createTonPlugin();

const figures = { indexed: 1000n, pending: 0n, inFlight: 0n, incomingInFlight: 0n };

describe('driftOf', () => {
  it('is 0 when the node agrees with the ledger', () => {
    expect(driftOf(figures, 1000n, knownCauses(evm, 'ethereum'))).toBe(0n);
  });
  it('is the excess when the node holds more than deposits detected explain (a skipped deposit)', () => {
    expect(driftOf(figures, 1500n, knownCauses(evm, 'ethereum'))).toBe(500n);
    expect(driftOf({ ...figures, pending: 200n }, 1500n, knownCauses(evm, 'ethereum'))).toBe(300n);
    expect(driftOf({ ...figures, pending: 500n }, 1500n, knownCauses(evm, 'ethereum'))).toBe(0n);
  });
  it('tolerates what withdrawals in flight (amount and fee cap) may already have taken, not more', () => {
    expect(driftOf({ ...figures, inFlight: 400n }, 600n, knownCauses(evm, 'ethereum'))).toBe(0n);
    expect(driftOf({ ...figures, inFlight: 400n }, 550n, knownCauses(evm, 'ethereum'))).toBe(-50n);
  });
  it('tolerates an internal movement in flight toward the address', () => {
    expect(driftOf({ ...figures, incomingInFlight: 300n }, 1300n, knownCauses(evm, 'ethereum'))).toBe(0n);
  });
  it("tolerates TON's storage fees below the ledger, nothing above", () => {
    expect(driftOf(figures, 1000n - 10_000_000n, knownCauses(ton, 'ton'))).toBe(0n);
    expect(driftOf(figures, 1000n - 10_000_001n, knownCauses(ton, 'ton'))).toBe(-1n);
    expect(driftOf(figures, 1001n, knownCauses(ton, 'ton'))).toBe(1n);
  });
});
