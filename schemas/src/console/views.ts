/**
 * The console's view types: what /console/api answers, declared once (this file: the inbox, keys,
 * members, passkeys, policies; ./views/*.ts: the other pages' answers, by feature). The server's
 * routes and view builders (inboxView, keyView, memberList, passkeyStore, policyView,
 * withdrawalPeople, the *Routes.ts that answer the rest) return these types and the console's pages (console-ui/) read them with `import type`, so a
 * shape the server sends and the pages expect cannot drift apart. Types only: this module compiles
 * to an empty file and the pages' bundle takes nothing from it.
 */

/**
 * The keys of `Built` that the contract `View` does not declare. A builder that spreads a record
 * (`{ ...row, extra }`) escapes TypeScript's excess-property check, so the builder asserts
 * `Undeclared<View, typeof row> extends never` to fail the build when the record grows a field the
 * console would be sent without the contract saying so.
 */
export type Undeclared<View, Built> = Exclude<keyof Built, keyof View>;

/** Fails to compile unless `Keys` is `never` (used with `Undeclared`). */
export type NoUndeclared<Keys extends never> = Keys;

/** Why an approval does not count toward the quorum now. */
export type ApprovalDiscount = 'removed' | 'role' | 'proposer' | 'cooling_off';

/** A vote as the withdrawal request's view carries it (the approvals that count, and why the others do not). */
export interface RequestApproval {
  memberId: number;
  decision: string;
  at: string;
  counts: boolean;
  reason?: ApprovalDiscount;
  countsFrom?: string;
}

/** A vote as the inbox shows it: with the voter's email. */
export interface InboxVote {
  memberId: number;
  email: string;
  decision: string;
  at: string;
  /** Whether it counts toward the quorum now; `reason` says why not (removed, role, proposer, cooling_off). */
  counts: boolean;
  reason?: string;
  countsFrom?: string;
}

/** A withdrawal request as the console's inbox answers it: the API's view, the votes with who cast them, and the policies that asked. */
export interface InboxRequest {
  id: number;
  walletId: number;
  /** pending, approved, rejected or expired. */
  status: string;
  asset: { key: string; symbol: string; decimals: number };
  amount: string;
  toAddress: string | null;
  outputs: { toAddress: string; amount: string; memo?: string; destinationTag?: number }[];
  fromAddress: string | null;
  note: string | null;
  idempotencyKey: string | null;
  requiredApprovals: number;
  /** Each vote, and whether it counts toward the quorum now and why not. */
  approvals: RequestApproval[];
  /** The approvals that count toward the quorum now. */
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
  /** Comma-separated ids of the policies that ask for approval of this intent ('' when none does: a request still needs one). */
  policyIds: string;
  votes: InboxVote[];
  proposedByEmail: string | null;
  /** The wallet's name, as the company calls it (ids mean nothing to a person). */
  walletName: string;
}

/** How a key stands: `owner_removed`: its creator is no longer a member, so the key can do nothing (it acts for them). */
export type ApiKeyStatus = 'active' | 'revoked' | 'expired' | 'owner_removed';

/** An API key as the console lists it: everything but the secret (only its hash is stored anyway). */
export interface ConsoleApiKey {
  id: number;
  hint: string;
  name: string | null;
  actions: string[];
  walletIds: number[] | '*';
  allowIps: string[] | null;
  createdBy: number | null;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  createdAt: string;
  status: ApiKeyStatus;
  createdByEmail: string | null;
  /** Whether the signed-in member may revoke it (owners and admins: any key; others: their own). */
  canRevoke: boolean;
}

/** One action a key can be granted, in words, and whether the signed-in member's role may grant it. */
export interface KeyActionChoice {
  action: string;
  description: string;
  global: boolean;
  allowed: boolean;
}

/** A member as the members page shows them: never a password hash, secret or link. */
export interface ConsoleMember {
  id: number;
  email: string;
  role: string;
  mfaEnrolled: boolean;
  /** Invited, and the link was not used yet: no password is set. */
  invitationPending: boolean;
  /** When their last console session began; null when they never signed in. */
  lastSignInAt: string | null;
  createdAt: string;
  /**
   * A new approver's cooling-off (README "Security model"): their approvals count from this time
   * on; null when they count already (the period ended, another owner confirmed them, or none applied).
   */
  approverCoolingOffUntil: string | null;
  /** The owner who confirmed them as an approver before their cooling-off ended, if any. */
  approverConfirmedBy: number | null;
}

/** A passkey as the console lists it: never the public key (useless to a reader, and nothing to leak). */
export interface ConsolePasskey {
  id: number;
  name: string;
  transports: string[];
  createdAt: string;
  lastUsedAt: string | null;
}

/** A spending policy as the console shows and edits it: amounts in the asset's display units, the rule in words. */
export interface ConsolePolicy {
  id: number;
  name: string;
  kind: string;
  enabled: boolean;
  createdAt: string;
  /** The rule in words ("Withdrawals of 1 ETH or more from any wallet need 2 approvals"). */
  sentence: string;
  asset: { key: string; symbol: string; decimals: number } | null;
  walletIds: number[] | null;
  addresses: string[] | null;
  /** Display units, exact decimal strings (what the form takes back); base units when the asset is not followed. */
  max: string | null;
  threshold: string | null;
  approvals: number | null;
  /** approval_above: what its quorum does; null: the deployment's `approvals.onApproval`. */
  onApproval: 'send' | 'wait_for_send' | null;
}

/** Who stands behind a withdrawal, in words: who asked for it and who signed off (the console's withdrawal rows carry both). */
export interface WithdrawalPeople {
  /** A member's email (a request they proposed), or the API key that prepared or proposed it. */
  proposedBy: string | null;
  /** The members who approved its request, with when; empty for a withdrawal prepared directly by a key. */
  approvedBy: { email: string; at: string }[];
}
