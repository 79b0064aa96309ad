import { BaseError, fromBaseUnits } from '@walletd/plugin-kit';

/**
 * Spending policies, evaluated in this order (the first refusal wins, so a denial is never
 * hidden behind an approval request):
 *   1. deny_destinations     — any destination on the list: policy_denied
 *   2. allow_destinations    — a destination not on the list: policy_denied
 *   2b. address_book         — a destination not in the company's address book (for the wallet or
 *                              all wallets, its chain): policy_denied; in it but still cooling off:
 *                              address_cooling_off, naming when it can receive
 *   3. max_per_transaction   — amount above the maximum: policy_denied
 *   4. daily_volume          — rolling 24 h volume of the wallet/asset plus this amount above the cap: policy_denied
 *   5. approval_above        — amount at or above the threshold needs `approvals` sign-offs (default 1):
 *                              a direct withdrawal gets policy_approval_required; a request approved by
 *                              fewer members than the highest triggered requirement gets policy_approvals_pending
 * A policy applies when it is enabled and its wallet and asset filters (null = all) match.
 */
export type PolicyKind =
  | 'deny_destinations'
  | 'allow_destinations'
  | 'address_book'
  | 'max_per_transaction'
  | 'daily_volume'
  | 'approval_above';

/** The address book's entries for this withdrawal's wallet and chain, by match form (lower case). */
export interface AddressBookView {
  usable: string[];
  /** Entries still cooling off, with the time they can receive (ISO 8601). */
  cooling: { matchKey: string; usableFrom: string }[];
}

export interface SpendingPolicy {
  id: number;
  name: string;
  kind: PolicyKind;
  /** addresses: string[] (+ matchKeys: string[]) | max: base-unit string | threshold: base-unit string, approvals?: number */
  params: Record<string, unknown>;
  walletIds: number[] | null;
  assetKey: string | null;
  enabled: boolean;
}

export interface WithdrawalContext {
  walletId: number;
  assetKey: string;
  decimals: number;
  symbol: string;
  amount: bigint;
  /**
   * Each destination as the forms a list entry may name it by (`destinationForms`: its match key;
   * on account-tag chains the tagged form and the account). Denied when any form is on a deny
   * list; allowed when some form is on the allow list.
   */
  destinations: string[][];
  /** Confirmed and pending outgoing volume of the wallet/asset in the last 24 h, base units. */
  volume24h: bigint;
  /** null for a direct withdrawal; the number of distinct approvals for one from a request. */
  approvals: number | null;
  /** Read only when an `address_book` policy applies; none means an empty book. */
  addressBook?: AddressBookView;
}

export type PolicyDecision =
  | { outcome: 'allow' }
  | {
      outcome: 'refuse';
      code: 'policy_denied' | 'policy_approval_required' | 'policy_approvals_pending' | 'address_cooling_off';
      policyIds: string;
      message: string;
      requiredApprovals?: number;
    };

/** Every kind, in evaluation order. */
export const POLICY_KINDS: readonly PolicyKind[] = [
  'deny_destinations',
  'allow_destinations',
  'address_book',
  'max_per_transaction',
  'daily_volume',
  'approval_above',
];

const applies = (p: SpendingPolicy, c: WithdrawalContext) =>
  p.enabled && (p.walletIds === null || p.walletIds.includes(c.walletId)) && (p.assetKey === null || p.assetKey === c.assetKey);

const list = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string').map((x) => x.toLowerCase()) : [];
// Destinations arrive in the chain's match form; lists added since address validation carry that
// form (`matchKeys`: on UTXO chains an output script, not the address text); older ones only addresses.
const destinationList = (params: Record<string, unknown>): string[] =>
  Array.isArray(params.matchKeys) ? list(params.matchKeys) : list(params.addresses);
const units = (v: unknown): bigint => {
  if (typeof v !== 'string' || !/^[0-9]+$/.test(v)) throw new BaseError('input_invalid', 'policy amounts are base-unit integer strings');
  return BigInt(v);
};
const label = (p: SpendingPolicy) => `policy "${p.name}" (id ${p.id})`;

export function evaluatePolicies(policies: SpendingPolicy[], c: WithdrawalContext): PolicyDecision {
  const active = policies.filter((p) => applies(p, c));
  const show = (v: bigint) => `${fromBaseUnits(v, c.decimals)} ${c.symbol}`;
  const deny = (ps: SpendingPolicy[], why: string): PolicyDecision => ({
    outcome: 'refuse',
    code: 'policy_denied',
    policyIds: ps.map((p) => p.id).join(','),
    message: `${ps.map(label).join(', ')}: ${why}`,
  });
  const destinations = c.destinations.map((forms) => forms.map((f) => f.toLowerCase()));

  for (const kind of POLICY_KINDS.slice(0, 5)) {
    if (kind === 'address_book') {
      const booked = addressBookRefusal(active, c, destinations);
      if (booked) return booked;
      continue;
    }
    const hits = active
      .filter((p) => p.kind === kind)
      .filter((p) => {
        switch (kind) {
          case 'deny_destinations': {
            const listed = destinationList(p.params);
            return destinations.some((forms) => forms.some((f) => listed.includes(f)));
          }
          case 'allow_destinations': {
            const listed = destinationList(p.params);
            return destinations.some((forms) => !forms.some((f) => listed.includes(f)));
          }
          case 'max_per_transaction':
            return c.amount > units(p.params.max);
          default:
            return c.volume24h + c.amount > units(p.params.max);
        }
      });
    const first = hits[0];
    if (!first) continue;
    if (kind === 'deny_destinations') return deny(hits, 'the destination is denied');
    if (kind === 'allow_destinations') return deny(hits, 'the destination is not on the allow-list');
    if (kind === 'max_per_transaction')
      return deny(hits, `${show(c.amount)} exceeds the per-transaction maximum of ${show(units(first.params.max))}`);
    return deny(
      hits,
      `${show(c.amount)} would bring the last 24 hours to ${show(c.volume24h + c.amount)}, above ${show(units(first.params.max))}`,
    );
  }

  const approvalRules = active.filter((p) => p.kind === 'approval_above' && c.amount >= units(p.params.threshold));
  if (approvalRules.length === 0) return { outcome: 'allow' };
  const required = Math.max(...approvalRules.map((p) => (Number.isInteger(p.params.approvals) ? (p.params.approvals as number) : 1)));
  const policyIds = approvalRules.map((p) => p.id).join(',');
  if (c.approvals === null) {
    return {
      outcome: 'refuse',
      code: 'policy_approval_required',
      policyIds,
      requiredApprovals: required,
      message: `${approvalRules.map(label).join(', ')}: ${show(c.amount)} needs ${required} approval${required === 1 ? '' : 's'}; propose it with POST /v1/withdrawal-requests`,
    };
  }
  if (c.approvals < required) {
    return {
      outcome: 'refuse',
      code: 'policy_approvals_pending',
      policyIds,
      requiredApprovals: required,
      message: `${approvalRules.map(label).join(', ')}: ${c.approvals} of ${required} approvals so far`,
    };
  }
  return { outcome: 'allow' };
}

/**
 * "Only to the address book": every destination must be an entry that can receive now. A
 * destination the book does not hold at all is denied; one it holds that is still cooling off is
 * refused with its own code and the time it can receive, so the caller knows to wait, not to ask.
 */
function addressBookRefusal(active: SpendingPolicy[], c: WithdrawalContext, destinations: string[][]): PolicyDecision | null {
  const ps = active.filter((p) => p.kind === 'address_book');
  if (ps.length === 0) return null;
  const usable = new Set(c.addressBook?.usable ?? []);
  const cooling = new Map((c.addressBook?.cooling ?? []).map((e) => [e.matchKey, e.usableFrom]));
  const policyIds = ps.map((p) => p.id).join(',');
  for (const forms of destinations) {
    if (forms.some((f) => usable.has(f))) continue;
    const waiting = forms.map((f) => cooling.get(f)).find((u) => u !== undefined);
    if (waiting !== undefined)
      return {
        outcome: 'refuse',
        code: 'address_cooling_off',
        policyIds,
        message: `${ps.map(label).join(', ')}: the destination was added to the address book recently and can receive from ${waiting} (cooling-off period)`,
      };
    return {
      outcome: 'refuse',
      code: 'policy_denied',
      policyIds,
      message: `${ps.map(label).join(', ')}: the destination is not in the address book`,
    };
  }
  return null;
}
