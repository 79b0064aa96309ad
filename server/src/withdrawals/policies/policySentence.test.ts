import type { PolicyView } from './policies';
import { policySentence } from './policySentence';

const base: PolicyView = {
  id: 1,
  companyId: 1,
  name: 'p',
  kind: 'approval_above',
  params: {},
  walletIds: null,
  assetKey: 'ethereum:mainnet:eth',
  enabled: true,
  createdAt: '2026-01-01T00:00:00.000Z',
};
const eth = { symbol: 'ETH', decimals: 18 };
const names = new Map([[3, 'treasury']]);

describe('policySentence: a policy in words, as the engine applies it', () => {
  it('says who must approve, at or above the threshold, from which wallet', () => {
    const p = { ...base, walletIds: [3], params: { threshold: '1000000000000000000', approvals: 2 } };
    expect(policySentence(p, eth, names)).toBe('Withdrawals of 1 ETH or more from wallet "treasury" (#3) need 2 approvals');
    expect(policySentence({ ...p, walletIds: null, params: { threshold: '1500000000000000000' } }, eth, names)).toBe(
      'Withdrawals of 1.5 ETH or more from any wallet need 1 approval',
    );
  });

  it('says the maximum and the daily cap, and base units when the asset is not followed', () => {
    expect(policySentence({ ...base, kind: 'max_per_transaction', params: { max: '10000000000000000000' } }, eth, names)).toBe(
      'Withdrawals above 10 ETH from any wallet are refused',
    );
    expect(policySentence({ ...base, kind: 'daily_volume', walletIds: [3, 4], params: { max: '5' } }, null, names)).toBe(
      'Each of wallets "treasury" (#3), #4 may send at most 5 base units of ethereum:mainnet:eth in any 24 hours; withdrawals beyond that are refused',
    );
  });

  it('names the listed destinations, and only the first three of a long list', () => {
    const allow = { ...base, kind: 'allow_destinations' as const, assetKey: null, params: { addresses: ['a', 'b', 'c', 'd', 'e'] } };
    expect(policySentence(allow, null, names)).toBe(
      'Withdrawals from any wallet go only to allow-listed addresses (a, b, c and 2 more); any other destination is refused',
    );
    expect(
      policySentence(
        { ...allow, kind: 'deny_destinations', assetKey: 'ethereum:mainnet:eth', params: { addresses: ['0xdead'] } },
        eth,
        names,
      ),
    ).toBe('Withdrawals of ETH from any wallet to 0xdead are refused');
  });
});
