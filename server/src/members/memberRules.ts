import { BaseError, ROLES, type Role, isRole } from '@walletd/core';
import type { ConsoleMember } from './memberList';
import type { MemberSession } from './sessions/sessions';

/** Powers in order: each role can do everything the ones before it can (see ROLE_ACTIONS). */
const RANK: Record<Role, number> = { viewer: 0, developer: 1, admin: 2, owner: 3 };

/** A role with more powers than the member had: asks for a step-up like an invitation does. */
export const isPromotion = (from: string, to: Role): boolean => !isRole(from) || RANK[to] > RANK[from];

/** Owners and admins manage members; everyone else reads the list only. */
export function requireMemberManager(s: MemberSession): void {
  if (s.role !== 'owner' && s.role !== 'admin')
    throw new BaseError('role_insufficient', `Your role (${s.role}) may not manage members; owners and admins may`);
}

/** Only an owner makes owners, and only an owner changes, resets or removes one. */
export function requireMayTouch(s: MemberSession, target: ConsoleMember, what: string): void {
  if (target.role === 'owner' && s.role !== 'owner')
    throw new BaseError('role_insufficient', `Your role (${s.role}) may not ${what} an owner; only owners may`);
}

export function requireMayGrant(s: MemberSession, role: Role): void {
  if (role === 'owner' && s.role !== 'owner')
    throw new BaseError('role_insufficient', `Your role (${s.role}) may not make someone an owner; only owners may`);
}

/** A role change, checked against who asks: never one's own (someone else has to), owners only by owners. */
export function checkRoleChange(s: MemberSession, target: ConsoleMember, role: Role): void {
  if (target.id === s.memberId) throw new BaseError('forbidden', 'You cannot change your own role: another owner or admin has to');
  requireMayTouch(s, target, 'change the role of');
  requireMayGrant(s, role);
}

/** Only another owner vouches for a new approver: never oneself, never an admin (who could vouch for their own second address). */
export function requireOwnerConfirming(s: MemberSession, target: ConsoleMember): void {
  if (s.role !== 'owner')
    throw new BaseError('role_insufficient', `Your role (${s.role}) may not confirm an approver; only another owner may`);
  if (target.id === s.memberId) throw new BaseError('forbidden', 'You cannot confirm yourself as an approver: another owner has to');
  if (target.approverCoolingOffUntil === null)
    throw new BaseError('conflict', `${target.email} has no cooling-off to end: their approvals already count`);
}

export function roleField(v: unknown): Role {
  if (typeof v !== 'string' || !isRole(v)) throw new BaseError('validation_failed', `"role" must be one of ${ROLES.join(', ')}`);
  return v;
}

export function emailField(v: unknown): string {
  if (typeof v !== 'string' || v.length > 254 || !/^[^\s@]+@[^\s@]+$/.test(v.trim()))
    throw new BaseError('validation_failed', '"email" must be an email address');
  return v.trim();
}

export function memberIdParam(v: unknown): number {
  const n = Number(v);
  if (typeof v !== 'string' || !/^[1-9][0-9]{0,9}$/.test(v) || n > 2_147_483_647)
    throw new BaseError('validation_failed', '"id" must be a member id (a positive integer)');
  return n;
}
