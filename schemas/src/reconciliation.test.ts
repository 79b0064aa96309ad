import { validator } from './registry';

const asset = { key: 'ethereum:devnet:usdc', symbol: 'USDC', decimals: 6, contractAddress: '0x5FbDB2315678afecb367f032d93F642f64180aa3' };
const drift = {
  chain: 'ethereum',
  network: 'devnet',
  walletId: 1,
  address: '0x1111111111111111111111111111111111111111',
  asset,
  status: 'drift',
  amount: '-2.5',
  indexed: '2.5',
  pending: '0',
  inFlight: '0',
  onchain: '0',
};
const envelope = (type: string, data: unknown) => ({
  id: '5f0c6f2e-3b1a-4c39-9a54-2f4de3f0f6a1',
  type,
  chain: 'ethereum',
  network: 'devnet',
  companyId: 1,
  createdAt: '2026-01-02T03:04:05.678Z',
  data,
});

describe('the reconciliation schemas', () => {
  it('take both opt-in events in the envelope, a drift signed and exact', () => {
    expect(validator('EventEnvelope')(envelope('reconciliation.drift', drift))).toBe(true);
    const cleared = { ...drift, status: 'cleared', amount: '0', onchain: '2.5', previousDrift: '-2.5' };
    expect(validator('EventEnvelope')(envelope('reconciliation.cleared', cleared))).toBe(true);
    expect(validator('EventEnvelope')(envelope('reconciliation.drift', { ...drift, address: null }))).toBe(true);
  });

  it.each([
    ['a JSON number', { amount: -2.5 }],
    ['negative zero', { amount: '-0' }],
    ['a leading zero', { amount: '02.5' }],
    ['a negative node balance', { onchain: '-1' }],
    ['an unknown field', { txHash: '0x01' }],
    ['another status', { status: 'ok' }],
  ])('refuse %s', (_, change) => {
    expect(validator('ReconciliationEventData')({ ...drift, ...change })).toBe(false);
  });
});
