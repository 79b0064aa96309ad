// Types only (erased by the build): the view shapes the server's console routes answer, declared once in @walletd/schemas.
import type {
  ChainHealth,
  ChainReconciliation,
  ConsoleAsset,
  ConsoleMe,
  ConsoleMember,
  ConsolePolicy,
  ConsoleTransaction,
  ConsoleVoteAnswer,
  ConsoleWithdrawal,
  DeepReorgNotice,
  DriftView,
  InboxRequest,
  MemberLink,
  OverviewWallet,
} from '@walletd/schemas';

/** The console's answers, declared once in @walletd/schemas; the pages keep these local names. */
export type Me = ConsoleMe;
export type VoteAnswer = ConsoleVoteAnswer;
export type Asset = ConsoleAsset;
export type Transaction = ConsoleTransaction;
export type Withdrawal = ConsoleWithdrawal;
export type { ChainHealth, ChainReconciliation, DeepReorgNotice, DriftView, MemberLink, OverviewWallet };

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

export const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** A withdrawal request as the console's inbox answers it: the contract in @walletd/schemas. */
export type { InboxRequest };

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

/** Owners and admins may move funds (the server's role table decides; this only hides controls). */
export const mayMoveFunds = (me: Me): boolean => me.role === 'owner' || me.role === 'admin';

export const when = (iso: string): string => new Date(iso).toLocaleString();

/** A spending policy as the console's API answers it: the contract's ConsolePolicy. */
export type Policy = ConsolePolicy;

/** A member as the members page lists them: the contract in @walletd/schemas. */
export type { ConsoleMember };
