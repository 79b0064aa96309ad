import { SCHEMAS, validator } from '@walletd/schemas';
import {
  EVENT_TYPES,
  OPT_IN_EVENT_TYPES,
  parseEvent,
  WalletdEventError,
  type DepositEventData,
  type ReconciliationEventData,
  type WalletdEvent,
  type WithdrawalEventData,
} from './index';

const deposit: WalletdEvent = {
  id: '5f0c6f2e-3b1a-4c39-9a54-2f4de3f0f6a1',
  type: 'deposit.confirmed',
  chain: 'ethereum',
  network: 'sepolia',
  companyId: 1,
  createdAt: '2026-01-02T03:04:05.678Z',
  data: {
    chain: 'ethereum',
    network: 'sepolia',
    txHash: '0x8f3c',
    addressId: 7,
    confirmations: 12,
    status: 'confirmed',
    direction: 'incoming',
    amount: '1.5',
    asset: { key: 'ethereum:sepolia:eth', symbol: 'ETH', decimals: 18, contractAddress: null },
    toAddress: '0x1111111111111111111111111111111111111111',
    eventType: 'native',
    eventIndex: 0,
  },
};

// The two opt-in types, as walletd sends them to a webhook that names them (docs/guide/reconciliation.md).
const drift: WalletdEvent = {
  id: '0b7e2d4c-9a61-4f0e-8d3b-6c5a4e3f2d10',
  type: 'reconciliation.drift',
  chain: 'ethereum',
  network: 'devnet',
  companyId: 1,
  createdAt: '2026-01-02T03:04:05.678Z',
  data: {
    chain: 'ethereum',
    network: 'devnet',
    walletId: 3,
    address: '0x1111111111111111111111111111111111111111',
    asset: { key: 'ethereum:devnet:eth', symbol: 'ETH', decimals: 18, contractAddress: null },
    status: 'drift',
    amount: '-0.25',
    indexed: '1',
    pending: '0',
    inFlight: '0',
    onchain: '0.75',
  },
};
const cleared: WalletdEvent = {
  ...drift,
  id: '0b7e2d4c-9a61-4f0e-8d3b-6c5a4e3f2d11',
  type: 'reconciliation.cleared',
  data: { ...(drift.data as ReconciliationEventData), status: 'cleared', amount: '0', onchain: '1', previousDrift: '-0.25' },
};

describe('parseEvent', () => {
  it('returns a valid envelope, from a string or bytes', () => {
    expect(validator('EventEnvelope')(deposit)).toBe(true); // the fixture is what walletd sends
    expect(parseEvent(JSON.stringify(deposit))).toEqual(deposit);
    expect(parseEvent(Buffer.from(JSON.stringify(deposit)))).toEqual(deposit);
    expect(parseEvent(new TextEncoder().encode(JSON.stringify(deposit)))).toEqual(deposit);
  });

  it('narrows data by type (checked by the compiler)', () => {
    const event = parseEvent(JSON.stringify(deposit));
    switch (event.type) {
      case 'deposit.detected':
      case 'deposit.confirmed':
      case 'deposit.rejected': {
        const data: DepositEventData = event.data;
        expect(data.direction).toBe('incoming');
        break;
      }
      case 'reconciliation.drift':
      case 'reconciliation.cleared': {
        const data: ReconciliationEventData = event.data;
        throw new Error(`unexpected ${data.status}`);
      }
      default: {
        const data: WithdrawalEventData = event.data;
        throw new Error(`unexpected ${data.withdrawalId}`);
      }
    }
  });

  it('knows the event types of the schema', () => {
    expect([...EVENT_TYPES]).toEqual([...SCHEMAS.EventEnvelope.properties.type.enum]);
    expect([...OPT_IN_EVENT_TYPES]).toEqual(['reconciliation.drift', 'reconciliation.cleared']);
  });

  it.each([
    ['reconciliation.drift', drift],
    ['reconciliation.cleared', cleared],
  ])('accepts the opt-in %s, typed as a ReconciliationEvent', (_, event) => {
    expect(validator('EventEnvelope')(event)).toBe(true); // the fixture is what walletd sends
    const parsed = parseEvent(JSON.stringify(event));
    expect(parsed).toEqual(event);
    if (parsed.type !== 'reconciliation.drift' && parsed.type !== 'reconciliation.cleared') throw new Error(parsed.type);
    const data: ReconciliationEventData = parsed.data;
    expect(data.asset.symbol).toBe('ETH');
  });

  it.each([
    ['not JSON', '{"id":', /not JSON/],
    ['an array', '[]', /not a JSON object/],
    ['null', 'null', /not a JSON object/],
    ['a string', '"deposit.confirmed"', /not a JSON object/],
    ['no id', JSON.stringify({ ...deposit, id: undefined }), /"id"/],
    ['a numeric id', JSON.stringify({ ...deposit, id: 5 }), /"id"/],
    ['an unknown type', JSON.stringify({ ...deposit, type: 'deposit.stolen' }), /unknown "type" "deposit.stolen"/],
    ['no type', JSON.stringify({ ...deposit, type: undefined }), /unknown "type"/],
    ['no data', JSON.stringify({ ...deposit, data: undefined }), /"data"/],
    ['array data', JSON.stringify({ ...deposit, data: [] }), /"data"/],
  ])('throws a WalletdEventError for %s', (_, body, message) => {
    expect(() => parseEvent(body)).toThrow(WalletdEventError);
    expect(() => parseEvent(body)).toThrow(message);
  });
});
