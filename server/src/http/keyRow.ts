import type { PreparedStatement } from '@walletd/core';

/**
 * The key lookup by hash (`$1` = the SHA-256 of the key, lowercase hex): one index probe on
 * `api_keys.key_hash`, answered as ONE text column `key`: a JSON array of what authentication
 * reads about the key, its company and the member who made it (`keyState.ts` names the positions).
 * Why one column and not fifteen: every authenticated request runs it, and node-postgres spends
 * more on a wide row than on the lookup (per query it rebuilds a row template field by field from
 * the row description, then parses two arrays and up to four dates: bench/README.md, `api`).
 * The text is also the key of the parsed context's cache (`keyState`): a request whose key row is
 * unchanged reuses it, while any change to the key, its company or its creator (revoked, expired,
 * new plan, role, removal) changes the text. Every request still reads the row: nothing is trusted
 * from memory that the database did not just confirm. Used alone by `authenticate`, and inside the
 * per-IP limiter's statement (with its own placeholder: `keyRowSql('$2')`).
 */
export const keyRowSql = (hashParam: string) => `select json_build_array(k.id, k.hint, k.name, k.company_id, c.name, c.plan,
    k.actions, k.wallet_ids, k.allow_ips, k.expires_at, k.revoked_at, k.created_at, k.created_by, m.role, m.removed_at)::text as key
  from api_keys k
  join companies c on c.id = k.company_id
  left join members m on m.id = k.created_by
  where k.key_hash = ${hashParam}
  limit 1`;

export const KEY_ROW: PreparedStatement = { name: 'walletd_key_json', text: keyRowSql('$1') };
