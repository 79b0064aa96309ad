import { ROLE_ACTIONS, isAction, type Action, type Plan, type Role } from '@walletd/core';
import type { AuthContext } from './authContext';

/** What a key row says, parsed once per distinct row text (keyRow.ts). */
export interface KeyState {
  /** Frozen: one object serves every request of the key while its row is unchanged. */
  auth: AuthContext;
  revoked: boolean;
  /** null: never expires. */
  expiresAtMs: number | null;
}

type KeyJson = [
  id: number,
  hint: string,
  name: string | null,
  companyId: number,
  companyName: string,
  plan: Plan,
  actions: string[],
  walletIds: number[] | null,
  allowIps: string[] | null,
  expiresAt: string | null,
  revokedAt: string | null,
  createdAt: string,
  createdBy: number | null,
  memberRole: Role | null,
  memberRemovedAt: string | null,
];

/** Bounded: cleared when it holds this many rows (each is a real key's row, so callers cannot grow it). */
const MAX_ROWS = 10_000;
const parsed = new Map<string, KeyState>();

/** The key row's text (keyRow.ts) as the request's authentication context, parsed when first seen. */
export function keyState(text: string): KeyState {
  const known = parsed.get(text);
  if (known) return known;
  const [
    id,
    hint,
    name,
    companyId,
    companyName,
    plan,
    actions,
    walletIds,
    allowIps,
    expiresAt,
    revokedAt,
    createdAt,
    createdBy,
    memberRole,
    memberRemovedAt,
  ] = JSON.parse(text) as KeyJson;
  const granted = Object.freeze(actions.filter(isAction)) as Action[];
  // Keys made by the operator without a member (created_by null) are capped by nothing but their grant.
  const role: Role | null = createdBy === null ? 'owner' : memberRemovedAt ? null : memberRole;
  const ceiling = role ? ROLE_ACTIONS[role] : new Set<Action>();
  const expires = expiresAt === null ? null : new Date(expiresAt);
  const auth: AuthContext = Object.freeze({
    keyId: id,
    hint,
    name,
    companyId,
    companyName,
    plan,
    granted,
    effective: new Set(granted.filter((a) => ceiling.has(a))),
    walletIds: walletIds === null ? null : new Set(walletIds),
    allowIps: allowIps === null ? null : (Object.freeze(allowIps) as string[]),
    expiresAt: expires,
    createdAt: new Date(createdAt),
    creator: createdBy === null ? null : Object.freeze({ memberId: createdBy, role }),
  });
  const state: KeyState = { auth, revoked: revokedAt !== null, expiresAtMs: expires === null ? null : expires.getTime() };
  if (parsed.size >= MAX_ROWS) parsed.clear();
  parsed.set(text, state);
  return state;
}
