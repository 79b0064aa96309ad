import type { Db } from '@walletd/core';
import type { ApiKeyRecord } from './apiKeys';

/**
 * What a key can do now, as listings show it. `owner_removed`: the member who created it was
 * removed, and a key acts for its creator, so authentication gives it no action at all (keyState.ts)
 * although the row is neither revoked nor expired. Revoked and expired win: they are final.
 */
export type KeyStatus = 'active' | 'revoked' | 'expired' | 'owner_removed';

export function keyStatus(r: Pick<ApiKeyRecord, 'revokedAt' | 'expiresAt'>, creatorRemoved: boolean, nowMs: number): KeyStatus {
  if (r.revokedAt) return 'revoked';
  if (r.expiresAt && Date.parse(r.expiresAt) <= nowMs) return 'expired';
  return creatorRemoved ? 'owner_removed' : 'active';
}

/** The creators among `ids` who are no longer members. */
export async function removedCreators(db: Db, ids: number[]): Promise<Set<number>> {
  if (!ids.length) return new Set();
  const rows = (await db('members').whereIn('id', ids).whereNotNull('removed_at').select('id')) as { id: number }[];
  return new Set(rows.map((m) => m.id));
}

/** A company's keys with their status, for the CLI's listing. */
export async function withKeyStatus(
  db: Db,
  records: ApiKeyRecord[],
  nowMs = Date.now(),
): Promise<(ApiKeyRecord & { status: KeyStatus })[]> {
  const removed = await removedCreators(
    db,
    records.flatMap((r) => (r.createdBy === null ? [] : [r.createdBy])),
  );
  return records.map((r) => ({ ...r, status: keyStatus(r, r.createdBy !== null && removed.has(r.createdBy), nowMs) }));
}
