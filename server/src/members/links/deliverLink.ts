import type { Mailer } from './mailer';
import type { Invitation } from './inviteMember';

/** What the inviter is answered: that the link went to the invitee, or (no transport) the link itself with a warning. */
export type LinkAnswer =
  | { purpose: Invitation['purpose']; mailedTo: string; expiresAt: string }
  | { purpose: Invitation['purpose']; url: string; expiresAt: string; warning: string };

export const NO_TRANSPORT_WARNING =
  'no mail transport is configured (mail.smtp): the link is shown to you instead of being mailed to the member. ' +
  'Hand it to them yourself, over a channel only they read: whoever holds it becomes this member';

const subjectOf = (inv: Invitation, company: string) =>
  inv.purpose === 'invitation' ? `You are invited to ${company}'s walletd console` : `Reset your ${company} walletd console password`;

function bodyOf(inv: Invitation, company: string, url: string): string {
  const what =
    inv.purpose === 'invitation'
      ? `You were invited to ${company}'s walletd console as ${inv.role}. Open this link to set your password and enroll an authenticator:`
      : `A password reset was issued for your ${company} walletd console account. Open this link to choose a new password:`;
  return [
    what,
    '',
    url,
    '',
    `The link works once and expires at ${inv.expiresAt}. If you did not expect this mail, do not open it and tell an owner of ${company}.`,
  ].join('\n');
}

/**
 * Invitations go to the invitee, not through the inviter (issue 42 §3): with a mail transport the
 * link is mailed to the member's address and the inviter never sees it; without one it is answered
 * to the inviter, once, with a warning. The link is never logged either way.
 */
export async function deliverLink(mailer: Mailer | null, inv: Invitation, url: string, company: string): Promise<LinkAnswer> {
  if (!mailer) return { purpose: inv.purpose, url, expiresAt: inv.expiresAt, warning: NO_TRANSPORT_WARNING };
  await mailer.send({ to: inv.email, subject: subjectOf(inv, company), text: bodyOf(inv, company, url) });
  return { purpose: inv.purpose, mailedTo: inv.email, expiresAt: inv.expiresAt };
}
