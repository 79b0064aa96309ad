import { ACTION_DESCRIPTIONS, ALL_ACTIONS, ROLE_ACTIONS, isGlobalAction, isRole, type Db } from '@walletd/core';
import type { ConsoleApiKey, KeyActionChoice, NoUndeclared, Undeclared } from '@walletd/schemas';
import type { ApiKeyRecord } from './apiKeys';
import { keyStatus, removedCreators } from './keyStatus';
import type { MemberSession } from '../members/sessions/sessions';

/** A key as the console lists it: the contract's ConsoleApiKey (everything but the secret). */
export type KeyView = ConsoleApiKey;
/** The record is spread into the view, past the excess-property check: a field the contract does not declare fails the build. */
export type KeyRecordDeclared = NoUndeclared<Undeclared<KeyView, Omit<ApiKeyRecord, 'companyId'>>>;

/** Owners and admins answer for every key of the company; other members for the keys they created. */
export const mayRevoke = (s: MemberSession, createdBy: number | null): boolean =>
  s.role === 'owner' || s.role === 'admin' || (createdBy !== null && createdBy === s.memberId && s.role !== 'viewer');

export async function toKeyViews(db: Db, s: MemberSession, records: ApiKeyRecord[], nowMs = Date.now()): Promise<KeyView[]> {
  const ids = [...new Set(records.map((r) => r.createdBy).filter((id): id is number => id !== null))];
  const emails = new Map<number, string>(
    ids.length
      ? ((await db('members').whereIn('id', ids).select('id', 'email')) as { id: number; email: string }[]).map((m) => [m.id, m.email])
      : [],
  );
  const removed = await removedCreators(db, ids);
  return records.map(({ companyId: _company, ...r }) => ({
    ...r,
    status: keyStatus(r, r.createdBy !== null && removed.has(r.createdBy), nowMs),
    createdByEmail: r.createdBy === null ? null : (emails.get(r.createdBy) ?? null),
    canRevoke: mayRevoke(s, r.createdBy),
  }));
}

/** Every action a key can be granted, in words, and whether this member's role may grant it. */
export function actionCatalog(role: string): KeyActionChoice[] {
  const allowed: ReadonlySet<string> = isRole(role) ? ROLE_ACTIONS[role] : new Set();
  return ALL_ACTIONS.map((action) => ({
    action,
    description: ACTION_DESCRIPTIONS[action],
    global: isGlobalAction(action),
    allowed: role !== 'viewer' && allowed.has(action),
  }));
}
