import type { ConsoleAuditPage, ConsoleAuditRow } from '@walletd/schemas';
import { BaseError, type Db } from '@walletd/core';

export interface AuditFilter {
  /** Rows whose action starts with this ("policy." or "member.signed_in"). */
  actionPrefix?: string;
  /** Rows by this member (their console actions and votes). */
  memberId?: number;
  from?: Date;
  to?: Date;
  /** The id of the last row of the previous page: the page holds older rows only. */
  before?: number;
  limit: number;
}

/** One row as the console shows it: the contract in @walletd/schemas. */
export type AuditRow = ConsoleAuditRow;

interface Row {
  id: string;
  created_at: Date;
  actor_type: string;
  actor_id: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  ip: string | null;
  details: Record<string, unknown> | null;
  member_email: string | null;
  key_owner_email: string | null;
}

/** Who did it, in words: a member by email, an API key by id (and the member it acts for), the operator, or walletd itself. */
function actorLabel(r: Row): string {
  switch (r.actor_type) {
    case 'member':
      return r.member_email ?? (r.actor_id ? `member #${r.actor_id}` : 'a member');
    case 'api_key':
      return `API key #${r.actor_id}${r.key_owner_email ? ` (${r.key_owner_email})` : ''}`;
    case 'operator':
      return 'operator (command line)';
    default:
      return 'walletd';
  }
}

const likePrefix = (p: string) => `${p.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * A company's audit log, newest first, one page at a time by keyset (`before` = the last id seen):
 * a page stays the same however many rows arrive meanwhile, and no offset is scanned.
 */
export async function listAudit(db: Db, companyId: number, f: AuditFilter): Promise<ConsoleAuditPage> {
  if (!Number.isInteger(f.limit) || f.limit < 1 || f.limit > 200) throw new BaseError('validation_failed', '"limit" must be from 1 to 200');
  const q = db('audit_log as a')
    // actor_id is text (a member's, a key's id): matched as text, and within the row's company.
    .joinRaw("LEFT JOIN members m ON a.actor_type = 'member' AND m.id::text = a.actor_id AND m.company_id = a.company_id")
    .joinRaw("LEFT JOIN api_keys k ON a.actor_type = 'api_key' AND k.id::text = a.actor_id AND k.company_id = a.company_id")
    .leftJoin('members as km', 'km.id', 'k.created_by')
    .where('a.company_id', companyId)
    .orderBy('a.id', 'desc')
    .limit(f.limit + 1)
    .select('a.*', 'm.email as member_email', 'km.email as key_owner_email');
  if (f.actionPrefix) q.whereRaw("a.action LIKE ? ESCAPE '\\'", [likePrefix(f.actionPrefix)]);
  if (f.memberId !== undefined) q.where({ 'a.actor_type': 'member', 'a.actor_id': String(f.memberId) });
  if (f.from) q.where('a.created_at', '>=', f.from);
  if (f.to) q.where('a.created_at', '<', f.to);
  if (f.before !== undefined) q.where('a.id', '<', f.before);
  const rows = (await q) as Row[];
  const page = rows.slice(0, f.limit);
  return {
    data: page.map((r) => ({
      id: Number(r.id),
      at: r.created_at.toISOString(),
      actor: { type: r.actor_type, id: r.actor_id, label: actorLabel(r) },
      ip: r.ip,
      action: r.action,
      target: r.target_type ? { type: r.target_type, id: r.target_id } : null,
      details: r.details,
    })),
    nextCursor: rows.length > f.limit ? String(page[page.length - 1]!.id) : null,
  };
}
