import { SCHEMAS, validator } from '@walletd/schemas';
import { EVENT_TYPES, parseEvent, WalletdEventError, type DepositEventData, type WalletdEvent, type WithdrawalEventData } from './index';

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
      default: {
        const data: WithdrawalEventData = event.data;
        throw new Error(`unexpected ${data.withdrawalId}`);
      }
    }
  });

  it('knows the event types of the schema', () => {
    expect([...EVENT_TYPES]).toEqual([...SCHEMAS.EventEnvelope.properties.type.enum]);
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
