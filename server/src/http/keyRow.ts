import type { Plan, PreparedStatement, Role } from '@walletd/core';

/** What authentication reads about a key: the key, its company, and the member who made it. */
export interface KeyRow {
  id: number;
  hint: string;
  name: string | null;
  company_id: number;
  company_name: string;
  plan: Plan;
  actions: string[];
  wallet_ids: number[] | null;
  allow_ips: string[] | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
  created_by: number | null;
  member_role: Role | null;
  member_removed_at: Date | null;
}

/**
 * The key lookup by hash (`$1` = the SHA-256 of the key, lowercase hex): one index probe on
 * `api_keys.key_hash`. Used alone by `authenticate`, and inside the per-IP limiter's statement
 * (with its own placeholder: `keyRowSql('$5')`).
 */
export const keyRowSql = (
  hashParam: string,
) => `select k.id, k.hint, k.name, k.company_id, c.name as company_name, c.plan, k.actions, k.wallet_ids,
    k.allow_ips, k.expires_at, k.revoked_at, k.created_at, k.created_by, m.role as member_role, m.removed_at as member_removed_at
  from api_keys k
  join companies c on c.id = k.company_id
  left join members m on m.id = k.created_by
  where k.key_hash = ${hashParam}
  limit 1`;

export const KEY_ROW: PreparedStatement = { name: 'walletd_key_row', text: keyRowSql('$1') };
