// Types only (erased by the build): the view shapes the server's console routes answer, declared once in @walletd/schemas.
import type { ConsoleMember, ConsolePolicy, InboxRequest, WithdrawalPeople } from '@walletd/schemas';

/** The console API's error body (interface spec): a stable `code` and words for a person. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The whole error body: some refusals carry what the page needs next (sign-in's passkey challenge). */
    readonly body: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The CSRF token the server set next to the session cookie; echoed in a header on every state change. */
function csrfToken(): string | undefined {
  for (const part of document.cookie.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === 'walletd_csrf') return rest.join('=') || undefined;
  }
  return undefined;
}

/** Calls /console/api on the same origin; the session travels in its httpOnly cookie. */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const csrf = csrfToken();
  if (STATE_CHANGING.has(method) && csrf) headers['x-csrf-token'] = csrf;
  const res = await fetch(`/console/api${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const json = text ? JSON.parse(text) : null;
  if (!res.ok) throw new ApiError(res.status, json?.code ?? 'error', json?.message ?? `Request failed (${res.status})`, json ?? {});
  return json as T;
}

export interface Me {
  memberId: number;
  companyId: number;
  email: string;
  role: string;
  mfaEnrolled: boolean;
  mfaEnrollmentRequired: boolean;
  /** How many passkeys the member enrolled (a step-up can use one). */
  passkeys: number;
  sessionExpiresAt: string;
}

export const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** A withdrawal request as the console's inbox answers it: the contract in @walletd/schemas. */
export type { InboxRequest };

/** The answer to a vote: the request after it, and the withdrawal when this vote reached the quorum. */
export interface VoteAnswer {
  request: InboxRequest;
  message: string;
  code?: string;
  prepared: boolean;
  /** Why the approved request is not yet prepared (the quorum was reached, the node or the funds were not there). */
  reason?: string;
  /** The quorum's `send`: whether the withdrawal went out at once, and why not. */
  sent?: boolean;
  notSent?: string;
  withdrawal: { id: number; status: string } | null;
}

/** Approvals that count now: a removed or demoted voter, the proposer and a cooling-off new approver do not. */
export const approvalsOf = (r: InboxRequest): number => r.countedApprovals;

/** Why an approval does not count, in words (server: DiscountReason). */
export function discountText(v: { reason?: string; countsFrom?: string }): string {
  if (v.reason === 'removed') return 'does not count: no longer a member';
  if (v.reason === 'role') return 'does not count: their role may no longer approve';
  if (v.reason === 'proposer') return 'does not count: they proposed it';
  if (v.reason === 'cooling_off')
    return `does not count yet: new approver, counts from ${v.countsFrom ? new Date(v.countsFrom).toLocaleString() : 'the end of their cooling-off'} or once another owner confirms them`;
  return 'does not count';
}

export interface Asset {
  key: string;
  symbol: string;
  decimals: number;
}

/** A wallet as the overview answers it: balances per asset, exact decimal strings. */
export interface OverviewWallet {
  id: number;
  name: string;
  chain: string;
  network: string;
  balances: { asset: Asset; confirmed: string; pending: string; reserved: string; available: string }[];
}

/** One followed chain's indexer, as /readyz judges it. */
export interface ChainHealth {
  chain: string;
  network: string;
  ready: boolean;
  reason?: string;
  nodeReachable: boolean | null;
  head: string | null;
  indexed: string | null;
  lag: string | null;
  ageSeconds: number | null;
}

/** A followed chain's reconciliation: open drifts of the company, when it last ran (docs/guide/reconciliation.md). */
export interface ChainReconciliation {
  chain: string;
  network: string;
  openDrifts: number;
  lastRunAt: string | null;
  lastPassAt: string | null;
  lastError: string | null;
}

/** A reorg deeper than the confirmation threshold (the Overview's banner; audit action chain.deep_reorg). */
export interface DeepReorgNotice {
  chain: string;
  network: string;
  at: string;
  ancestor: string;
  from: string;
}

/** An open reconciliation drift (GET /v1/reconciliation's row) with what the records say about it. */
export interface DriftView {
  walletId: number;
  address: string | null;
  asset: { key: string; symbol: string };
  drift: string;
  onchain: string;
  indexed: string;
  explanation: {
    causes: { cause: string; description: string }[];
    transactions: {
      type: string;
      id: number;
      txHash: string | null;
      direction: string;
      amount: string;
      status: string;
      reason: string | null;
    }[];
  } | null;
}

/** A deposit or withdrawal on chain (GET /v1/transactions' row, with the wallet's name). */
export interface Transaction {
  id: number;
  kind: 'deposit' | 'withdrawal';
  withdrawalId: number | null;
  walletId: number;
  walletName: string | null;
  chain: string;
  network: string;
  txHash: string;
  asset: Asset;
  amount: string;
  fromAddress: string | null;
  toAddress: string | null;
  blockNumber: number | null;
  status: string;
  confirmations: number;
  reason: string | null;
  createdAt: string;
}

/** A withdrawal as the console lists it; who asked and who approved come from the contract's WithdrawalPeople. */
export interface Withdrawal extends WithdrawalPeople {
  id: number;
  walletId: number;
  walletName: string | null;
  requestId: number | null;
  status: string;
  chain: string;
  network: string;
  asset: Asset;
  amount: string;
  toAddress: string | null;
  outputs: { toAddress: string; amount: string }[];
  fromAddress: string;
  fee: { amount: string; asset: Asset } | null;
  feeEstimate: { amount: string; asset: Asset } | null;
  txHash: string | null;
  confirmations: number | null;
  reason: string | null;
  lastError: string | null;
  createdAt: string;
  history?: { status: string; at: string; details: Record<string, unknown> | null }[];
}

/** Owners and admins may move funds (the server's role table decides; this only hides controls). */
export const mayMoveFunds = (me: Me): boolean => me.role === 'owner' || me.role === 'admin';

export const when = (iso: string): string => new Date(iso).toLocaleString();

/** A spending policy as the console's API answers it: the contract's ConsolePolicy. */
export type Policy = ConsolePolicy;

/** A member as the members page lists them: the contract in @walletd/schemas. */
export type { ConsoleMember };

/** A one-time invitation or reset link, answered once to the member who asked for it. */
export interface MemberLink {
  member: ConsoleMember;
  purpose: 'invitation' | 'password_reset';
  /** With a mail transport: the address the link was mailed to (the link itself is never shown). */
  mailedTo?: string;
  /** Without one: the link, shown once, and a warning that says so. */
  url?: string;
  warning?: string;
  expiresAt: string;
}
