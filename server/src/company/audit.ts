import type { Db } from '@walletd/core';
import type { Knex } from 'knex';

export interface AuditEntry {
  companyId: number | null;
  actorType: 'api_key' | 'member' | 'operator' | 'system';
  actorId?: string | number | null;
  action: string;
  targetType?: string;
  targetId?: string | number;
  ip?: string | null;
  details?: Record<string, unknown>;
}

/** Append-only record of sensitive reads and changes. Never holds a secret. */
export async function audit(db: Db | Knex.Transaction, e: AuditEntry): Promise<void> {
  await db('audit_log').insert({
    company_id: e.companyId,
    actor_type: e.actorType,
    actor_id: e.actorId === undefined || e.actorId === null ? null : String(e.actorId),
    action: e.action,
    target_type: e.targetType ?? null,
    target_id: e.targetId === undefined ? null : String(e.targetId),
    ip: e.ip ?? null,
    details: e.details ?? null,
  });
}
