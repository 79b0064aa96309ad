/**
 * The signed-in member and member links as the console answers them
 * (server/src/members/signInRoutes.ts `GET /me`; the members routes' invitation and reset links).
 * Types only (see ../views.ts).
 */
import type { ConsoleMember } from '../views';

/** The signed-in member (`GET /console/api/me`). */
export interface ConsoleMe {
  memberId: number;
  companyId: number;
  email: string;
  role: string;
  mfaEnrolled: boolean;
  mfaEnrollmentRequired: boolean;
  /** How many passkeys the member enrolled (a step-up can use one). */
  passkeys: number;
  sessionExpiresAt: string;
  /** When this session last stepped up; null: never. */
  steppedUpAt: string | null;
}

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
