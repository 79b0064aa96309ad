import type { CHAINS } from '../chains/registry';

/**
 * The largest amount, in base units, that one transfer on a chain can carry. Checked before any
 * node call, so an amount the chain cannot represent is the caller's 400 `invalid_amount` and
 * never a node's refusal (a 502 that clients are told to retry). Every value fits the database's
 * numeric(78,0).
 *
 * - EVM chains: amounts are uint256 (native value and ERC-20 alike).
 * - bitcoin: MAX_MONEY, 21 000 000 BTC; nodes refuse larger outputs (bad-txns-vout-toolarge).
 * - dogecoin: MAX_MONEY of Dogecoin Core, 10 000 000 000 DOGE.
 * - tron: TRX amounts are int64 in the transaction protobuf; TRC-20 tokens are uint256.
 * - solana: u64 (lamports and SPL token amounts).
 * - xrp: XRP drops cap at 10^17 (100 billion XRP, the fixed supply).
 * - polkadot: u128 balances.
 * - ton: Coins are VarUInteger 16 (at most 2^120 - 1), TON and jettons alike.
 */
const UINT256 = 2n ** 256n - 1n;
const INT64 = 2n ** 63n - 1n;

export function amountCeiling(chain: (typeof CHAINS)[number], native: boolean): bigint {
  switch (chain) {
    case 'ethereum':
    case 'bsc':
    case 'polygon':
    case 'arbitrum':
      return UINT256;
    case 'bitcoin':
      return 21_000_000n * 100_000_000n;
    case 'dogecoin':
      return 10_000_000_000n * 100_000_000n;
    case 'tron':
      return native ? INT64 : UINT256;
    case 'solana':
      return 2n ** 64n - 1n;
    case 'xrp':
      return 10n ** 17n;
    case 'polkadot':
      return 2n ** 128n - 1n;
    case 'ton':
      return 2n ** 120n - 1n;
  }
}
