import { type Db, fromBaseUnits, parseBaseUnits } from '@walletd/core';
import type { Knex } from 'knex';
import { type ResolvedIntent, memoFields } from '../intent';
import { type DiscountReason, countVotes } from './countVotes';
import type { WithdrawalView } from '../view';

/**
 * The stored intent of a request: fixed at proposal (a database trigger refuses any change). The
 * memo and tag are per output; a request stored before that carried them at the top level (for
 * its one recipient), read as the output's.
 */
export interface StoredIntent {
  asset: ResolvedIntent['asset'];
  outputs: { toAddress: string; toKey: string; amount: string; memo?: string; destinationTag?: number }[];
  from: ResolvedIntent['from'];
  memo?: string;
  destinationTag?: number;
  note?: string;
  /** A consolidation sweep's addresses (see `approvedSweepPlan`). */
  sources?: string[];
}

/** The outputs of a stored intent, a top-level memo or tag of an older one given to its single output. */
export const storedOutputs = (s: StoredIntent): StoredIntent['outputs'] =>
  s.outputs.length === 1 && (s.memo !== undefined || s.destinationTag !== undefined)
    ? s.outputs.map((o) => ({ ...memoFields(s), ...o }))
    : s.outputs;

export interface RequestRow {
  id: number;
  company_id: number;
  wallet_id: number;
  intent: StoredIntent;
  /** `expired`: approved, funds short past `expires_at` (migration 037). */
  status: 'pending' | 'approved' | 'rejected' | 'expired';
  proposed_by_key: number | null;
  proposed_by_member: number | null;
  required_approvals: number;
  withdrawal_id: string | number | null;
  idempotency_key: string | null;
  intent_hash: string | null;
  last_error: string | null;
  /** Migration 025: a sweep waiting for approval names its rule. */
  sweep_rule_id: number | null;
  /** Migration 035: times it went back to pending because a voter stopped counting. */
  reopened: number;
  /** Migration 037: what the quorum does (null while pending), and the funds-short expiry. */
  on_approval: 'send' | 'wait_for_send' | null;
  funds_short_since: Date | null;
  expires_at: Date | null;
  decided_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface RequestView {
  id: number;
  walletId: number;
  status: string;
  asset: ResolvedIntent['asset'];
  amount: string;
  toAddress: string | null;
  outputs: { toAddress: string; amount: string; memo?: string; destinationTag?: number }[];
  fromAddress: string | null;
  note: string | null;
  idempotencyKey: string | null;
  requiredApprovals: number;
  /** Each vote, and whether it counts toward the quorum now and why not (see countVotes). */
  approvals: { memberId: number; decision: string; at: string; counts: boolean; reason?: DiscountReason; countsFrom?: string }[];
  /** The approvals that count now. */
  countedApprovals: number;
  proposedByKey: number | null;
  proposedByMember: number | null;
  withdrawalId: number | null;
  lastError: string | null;
  /** What the quorum does: `send` at once or `wait_for_send` (a person's Send); null until approved. */
  onApproval: 'send' | 'wait_for_send' | null;
  /** Approved while funds were short: since when, and when it expires unless prepared before. */
  fundsShortSince: string | null;
  expiresAt: string | null;
  createdAt: string;
  updatedAt: string;
  decidedAt: string | null;
}

export const toIntent = (s: StoredIntent): ResolvedIntent => ({
  asset: s.asset,
  outputs: storedOutputs(s).map((o) => ({ to: o.toAddress, toKey: o.toKey, amount: parseBaseUnits(o.amount), ...memoFields(o) })),
  from: s.from,
});

export async function toRequestView(db: Db | Knex.Transaction, r: RequestRow): Promise<RequestView> {
  const counted = await countVotes(db, r);
  const { asset } = r.intent;
  const show = (units: string) => fromBaseUnits(parseBaseUnits(units), asset.decimals);
  const total = r.intent.outputs.reduce((s, o) => s + parseBaseUnits(o.amount), 0n);
  return {
    id: r.id,
    walletId: r.wallet_id,
    status: r.status,
    asset,
    amount: fromBaseUnits(total, asset.decimals),
    toAddress: r.intent.outputs.length === 1 ? (r.intent.outputs[0]?.toAddress ?? null) : null,
    outputs: storedOutputs(r.intent).map((o) => ({ toAddress: o.toAddress, amount: show(o.amount), ...memoFields(o) })),
    fromAddress: r.intent.from?.address ?? null,
    note: r.intent.note ?? null,
    idempotencyKey: r.idempotency_key,
    requiredApprovals: r.required_approvals,
    approvals: counted.votes.map(({ at, ...v }) => ({ ...v, at: at.toISOString() })),
    countedApprovals: counted.approvals,
    proposedByKey: r.proposed_by_key,
    proposedByMember: r.proposed_by_member,
    withdrawalId: r.withdrawal_id === null ? null : Number(r.withdrawal_id),
    lastError: r.last_error,
    onApproval: r.on_approval ?? null,
    fundsShortSince: r.funds_short_since ? r.funds_short_since.toISOString() : null,
    expiresAt: r.expires_at ? r.expires_at.toISOString() : null,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
    decidedAt: r.decided_at ? r.decided_at.toISOString() : null,
  };
}

/** What a vote (or a settle) answers; here beside RequestView so settleRequest and requests need not import each other. */
export interface VoteOutcome {
  request: RequestView;
  /** Present while sign-offs are missing: policy_approvals_pending; or policy_denied when a policy now refuses. */
  code?: 'policy_approvals_pending' | 'policy_denied';
  policyIds?: string;
  message: string;
  withdrawal?: WithdrawalView;
  /** Set when the quorum approved the request but preparing its withdrawal failed: why, in words (also its `lastError`). */
  notPrepared?: string;
  /** `send` at quorum: whether it went out, and why not (the withdrawal then waits for a person's Send). */
  sent?: boolean;
  notSent?: string;
}
