import type { Db, Envelope, MasterKey } from '@walletd/core';
import { audit } from '../../company/audit';
import { SEALED_COLUMNS, type SealedColumn } from './sealedColumns';

export interface RotationProgress {
  table: string;
  done: number;
  total: number;
}

export interface RotationResult {
  /** Envelopes re-wrapped by this run, per table. */
  rewrapped: Record<string, number>;
  /** Envelopes now under the current key, all tables. */
  current: number;
}

/**
 * Re-wraps every envelope not yet under the current key, a batch per transaction with its rows
 * locked (a running serve reads either key meanwhile: it holds both during a rotation). Each
 * envelope names its key, so a run killed half-way is resumed by running it again.
 */
export async function rotateMasterKey(
  db: Db,
  key: MasterKey,
  opts: { batchSize: number; onProgress?: (p: RotationProgress) => void },
): Promise<RotationResult> {
  const rewrapped: Record<string, number> = {};
  await audit(db, { companyId: null, actorType: 'operator', action: 'master_key.rotate_started', details: { kid: key.id } });
  for (const col of SEALED_COLUMNS) {
    const total = await countOther(db, col, key.id);
    let done = 0;
    opts.onProgress?.({ table: col.table, done, total });
    for (;;) {
      const n = await db.transaction(async (trx) => {
        const rows: { id: number; envelope: Envelope }[] = await trx(col.table)
          .select({ id: col.id, envelope: col.column })
          .whereNotNull(col.column)
          .whereRaw('?? ->> ? is distinct from ?', [col.column, 'kid', key.id])
          .orderBy(col.id)
          .limit(opts.batchSize)
          .forUpdate();
        for (const r of rows) {
          const next = key.rewrap(r.envelope, col.context(r.id));
          await trx(col.table)
            .where(col.id, r.id)
            .update({ [col.column]: JSON.stringify(next) });
        }
        return rows.length;
      });
      if (n === 0) break;
      done += n;
      opts.onProgress?.({ table: col.table, done, total: Math.max(total, done) });
    }
    rewrapped[col.table] = done;
  }
  let current = 0;
  for (const col of SEALED_COLUMNS) current += await countCurrent(db, col, key.id);
  await audit(db, { companyId: null, actorType: 'operator', action: 'master_key.rotated', details: { kid: key.id, rewrapped, current } });
  return { rewrapped, current };
}

async function countOther(db: Db, col: SealedColumn, kid: string): Promise<number> {
  const row = await db(col.table)
    .whereNotNull(col.column)
    .whereRaw('?? ->> ? is distinct from ?', [col.column, 'kid', kid])
    .count<{ n: string }>({ n: '*' })
    .first();
  return Number(row?.n ?? 0);
}

async function countCurrent(db: Db, col: SealedColumn, kid: string): Promise<number> {
  const row = await db(col.table).whereRaw('?? ->> ? = ?', [col.column, 'kid', kid]).count<{ n: string }>({ n: '*' }).first();
  return Number(row?.n ?? 0);
}
