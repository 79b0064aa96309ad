import { fromBaseUnits, parseBaseUnits } from '@walletd/core';
import type { PolicyView } from './policies';

/** How amounts read: the asset's symbol and decimals, or null when the asset is not followed (base units then). */
export type PolicyAssetWords = { symbol: string; decimals: number } | null;

const listed = (xs: string[]): string => (xs.length <= 3 ? xs.join(', ') : `${xs.slice(0, 3).join(', ')} and ${xs.length - 3} more`);

/**
 * One policy's rule in words, as the engine (core/src/policy/evaluatePolicies.ts) applies it: a
 * maximum refuses what is above it, a threshold asks approval at or above it, the daily cap counts
 * each wallet's rolling 24 hours per asset. `walletNames` gives the wallets' names where known.
 */
export function policySentence(p: PolicyView, asset: PolicyAssetWords, walletNames: ReadonlyMap<number, string>): string {
  const amount = (v: unknown): string => {
    const units = parseBaseUnits(String(v));
    return asset ? `${fromBaseUnits(units, asset.decimals)} ${asset.symbol}` : `${units} base units of ${p.assetKey}`;
  };
  const wallet = (id: number) => (walletNames.has(id) ? `"${walletNames.get(id)}" (#${id})` : `#${id}`);
  const from =
    p.walletIds === null ? 'any wallet' : `${p.walletIds.length === 1 ? 'wallet' : 'wallets'} ${listed(p.walletIds.map(wallet))}`;
  const of = p.assetKey === null ? '' : ` of ${asset?.symbol ?? p.assetKey}`;
  switch (p.kind) {
    case 'approval_above': {
      const n = Number.isInteger(p.params.approvals) ? (p.params.approvals as number) : 1;
      const then =
        p.params.onApproval === 'send' ? ', then go out at once' : p.params.onApproval === 'wait_for_send' ? ', then wait for a Send' : '';
      return `Withdrawals of ${amount(p.params.threshold)} or more from ${from} need ${n} approval${n === 1 ? '' : 's'}${then}`;
    }
    case 'max_per_transaction':
      return `Withdrawals above ${amount(p.params.max)} from ${from} are refused`;
    case 'daily_volume':
      return `${p.walletIds === null ? 'Each wallet' : `Each of ${from}`} may send at most ${amount(p.params.max)} in any 24 hours; withdrawals beyond that are refused`;
    case 'deny_destinations':
      return `Withdrawals${of} from ${from} to ${listed(addresses(p))} are refused`;
    case 'address_book':
      return `Withdrawals${of} from ${from} go only to address-book entries past their cooling-off period; any other destination is refused`;
    default:
      return `Withdrawals${of} from ${from} go only to allow-listed addresses (${listed(addresses(p))}); any other destination is refused`;
  }
}

const addresses = (p: PolicyView): string[] =>
  Array.isArray(p.params.addresses) ? p.params.addresses.filter((a): a is string => typeof a === 'string') : [];
