/**
 * The company's settings and records as the console answers them: the encryption key
 * (server/src/keys/encryptionKeyRoutes.ts), the audit log (server/src/company/auditRoutes.ts), the
 * address book (server/src/withdrawals/addressBook/addressBookRoutes.ts), the approval default
 * (server/src/withdrawals/requests/approvalSettingsRoutes.ts) and MFA enrollment
 * (server/src/members/signInRoutes.ts). Types only (see ../views.ts).
 */

/** The company's sealing key: never the key itself, its fingerprint, when and by whom. */
export interface ConsoleEncryptionKey {
  set: boolean;
  fingerprint: string | null;
  setAt: string | null;
  /** The member who set it in the console; null when it was set before (by an operator) or never. */
  setBy: { memberId: number; email: string } | null;
}

/** One audit log row, with the actor named for a person. */
export interface ConsoleAuditRow {
  id: number;
  at: string;
  actor: { type: string; id: string | null; label: string };
  ip: string | null;
  action: string;
  target: { type: string; id: string | null } | null;
  details: Record<string, unknown> | null;
}

/** A page of the audit log, newest first; `nextCursor` is the `cursor` of the following page. */
export interface ConsoleAuditPage {
  data: ConsoleAuditRow[];
  nextCursor: string | null;
}

/** An address book entry (the /v1 view) with its wallet's name. */
export interface ConsoleAddressBookEntry {
  id: number;
  walletId: number | null;
  walletName: string | null;
  chain: string;
  network: string;
  name: string;
  address: string;
  status: 'cooling_off' | 'usable';
  createdAt: string;
  usableFrom: string;
  createdByMember: number | null;
  createdByKey: number | null;
  shortenRequestedBy: number | null;
  shortenedBy: number | null;
}

/** The address book: its entries and how long a new one cools off. */
export interface ConsoleAddressBook {
  data: ConsoleAddressBookEntry[];
  coolingOffMs: number;
}

/** What a withdrawal request's quorum does: send at once, or wait for someone to send. */
export type ConsoleOnApproval = 'send' | 'wait_for_send';

/** The company's approval default: what applies, the company's own choice, the deployment's. */
export interface ConsoleApprovalSettings {
  onApproval: ConsoleOnApproval;
  companyDefault: ConsoleOnApproval | null;
  deploymentDefault: ConsoleOnApproval;
}

/** An MFA enrollment's start: the secret, its otpauth URI and the URI as an SVG QR code. */
export interface ConsoleMfaEnrollment {
  secret: string;
  otpauthUri: string;
  /** The URI as a QR code, an SVG document rendered by the server. */
  qrSvg: string;
}
