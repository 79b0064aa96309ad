import type { Db, Envelope, MasterKey } from '@walletd/core';
import { audit } from '../../company/audit';
import { SEALED_COLUMNS } from './sealedColumns';

export interface VerifyResult {
  /** Envelopes that opened with the current key. */
  opened: number;
  /** `table:id` of envelopes still under another key or that failed to open (none: the old key may go). */
  failed: string[];
}

/**
 * Opens every envelope with the current key alone. When all open, the database is keyed to the
 * current key from then on (a start with only the previous key is refused), and the previous key
 * may be removed from the config and destroyed.
 */
export async function verifyMasterKey(db: Db, key: MasterKey, onProgress?: (opened: number) => void): Promise<VerifyResult> {
  let opened = 0;
  const failed: string[] = [];
  for (const col of SEALED_COLUMNS) {
    let after = -1;
    for (;;) {
      const rows: { id: number; envelope: Envelope }[] = await db(col.table)
        .select({ id: col.id, envelope: col.column })
        .whereNotNull(col.column)
        .where(col.id, '>', after)
        .orderBy(col.id)
        .limit(500);
      if (rows.length === 0) break;
      for (const r of rows) {
        after = r.id;
        if (r.envelope.kid !== key.id) {
          failed.push(`${col.table}:${r.id}`);
          continue;
        }
        try {
          key.open(r.envelope, col.context(r.id)).fill(0);
          opened += 1;
        } catch {
          failed.push(`${col.table}:${r.id}`);
        }
      }
      onProgress?.(opened);
    }
  }
  if (failed.length === 0) {
    await db('settings').insert({ key: 'master_key_fingerprint', value: key.fingerprint() }).onConflict('key').merge();
  }
  await audit(db, {
    companyId: null,
    actorType: 'operator',
    action: 'master_key.verified',
    details: { kid: key.id, opened, failed: failed.length },
  });
  return { opened, failed };
}
