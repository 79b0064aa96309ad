import type { RequestHandler } from 'express';
import { BaseError, type Db, ROLE_ACTIONS, isRole } from '@walletd/core';
import type { MemberSession } from './sessions';
import { mfaEnrollmentPending } from '../signIn/signIn';

/** Owners and admins (and anyone who may approve) must enroll MFA before any page that acts. */
export function requireMfaEnrolled(db: Db): RequestHandler {
  return async (req, _res, next) => {
    try {
      const s = req.memberSession!;
      if (await mfaEnrollmentPending(db, s.memberId, s.role))
        throw new BaseError('mfa_enrollment_required', 'Enroll an authenticator first: POST /console/api/mfa/enroll');
      next();
    } catch (e) {
      next(e);
    }
  };
}

/**
 * The member's role must carry `action` (the same role table API keys are capped by), else 403
 * role_insufficient naming the role and what was attempted.
 */
export function requireRoleAction(s: MemberSession, action: string, what: string): void {
  if (!isRole(s.role) || !(ROLE_ACTIONS[s.role] as ReadonlySet<string>).has(action))
    throw new BaseError('role_insufficient', `Your role (${s.role}) may not ${what}`);
}

/**
 * For what the API-key action table does not cover (policies, the encryption key, the audit log):
 * the member's role must be one of `roles`, else 403 role_insufficient in words.
 */
export function requireRole(s: MemberSession, roles: readonly string[], what: string): void {
  if (!roles.includes(s.role)) throw new BaseError('role_insufficient', `Your role (${s.role}) may not ${what}`);
}
