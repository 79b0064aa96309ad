import type { DetectedTransfer, TokenDefinition } from '@walletd/plugin-kit';
import { TRANSFER_TOPIC } from './detect';
import { lastTokenLookup } from './lastTokenLookup';
import { tokenBalanceChanges } from './tokenBalanceChanges';

const word = (address: string) => `0x${address.slice(2).padStart(64, '0')}`;
const amount = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`;
const TOKEN: TokenDefinition = {
  key: 'ethereum:devnet:tok',
  symbol: 'TOK',
  decimals: 6,
  contractAddress: `0x${'a'.repeat(40)}`,
  matchKey: `0x${'a'.repeat(40)}`,
};
const OTHER = `0x${'b'.repeat(40)}`;
const DEPOSIT = `0x${'1'.repeat(40)}`;
const SOMEONE = `0x${'2'.repeat(40)}`;
const log = (token: string, from: string, to: string, value: bigint) => ({
  address: token,
  topics: [TRANSFER_TOPIC, word(from), word(to)],
  data: amount(value),
});
const credit = (assetKey: string): DetectedTransfer => ({
  txHash: '0x01',
  eventIndex: 1,
  to: DEPOSIT,
  toKey: DEPOSIT,
  assetKey,
  amount: 7n,
  eventType: 'erc20_transfer',
});
const tokens = new Map([[TOKEN.matchKey, TOKEN]]);

describe('tokenBalanceChanges: what the logs say a credited address’s token balance moved by', () => {
  it('nets every Transfer of the token in and out of the address in successful transactions', () => {
    const receipts = [
      { status: '0x1', logs: [log(TOKEN.matchKey, SOMEONE, DEPOSIT, 7n), log(OTHER, SOMEONE, DEPOSIT, 1000n)] },
      { status: '0x1', logs: [log(TOKEN.matchKey, DEPOSIT, SOMEONE, 2n)] },
      // Reverted: it moved nothing.
      { status: '0x0', logs: [log(TOKEN.matchKey, DEPOSIT, SOMEONE, 5n)] },
      { status: '0x1', logs: [log(TOKEN.matchKey, SOMEONE, SOMEONE, 9n)] },
    ];
    expect(tokenBalanceChanges(receipts, [credit(TOKEN.key)], lastTokenLookup(tokens), 'ethereum:devnet:eth', TRANSFER_TOPIC)).toEqual([
      { toKey: DEPOSIT, assetKey: TOKEN.key, delta: 5n },
    ]);
  });

  it('is empty (no balance read follows) when the block credits no token', () => {
    const receipts = [{ status: '0x1', logs: [log(TOKEN.matchKey, SOMEONE, DEPOSIT, 7n)] }];
    expect(tokenBalanceChanges(receipts, [], lastTokenLookup(tokens), 'ethereum:devnet:eth', TRANSFER_TOPIC)).toEqual([]);
    expect(
      tokenBalanceChanges(receipts, [credit('ethereum:devnet:eth')], lastTokenLookup(tokens), 'ethereum:devnet:eth', TRANSFER_TOPIC),
    ).toEqual([]);
  });
});
