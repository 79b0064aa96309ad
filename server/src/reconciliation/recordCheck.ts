import { type AssetRef, type Db, type EventType, fromBaseUnits, parseBaseUnits, recordEvent } from '@walletd/core';
import type { LedgerFigures } from './driftBand';
import { explainDrift } from './explainDrift';
import type { Scope } from './scopeFigures';

export interface CheckInput {
  chain: string;
  network: string;
  scope: Scope;
  asset: AssetRef;
  figures: LedgerFigures;
  onchain: bigint;
  drift: bigint;
}

interface PreviousRow {
  drift: string;
  drift_checks: number;
  reported_drift: string | null;
  drift_since: Date | null;
  agreed_at: Date | null;
}

/**
 * A drift must be seen this many checks in a row, unchanged, before it is announced: the node may
 * be a block ahead of the indexer (a deposit in a block not yet read), which the next look no
 * longer shows. The second look comes `reconciliation.confirmDelayMs` after the first
 * (`recheckDrifts`), not a whole interval later.
 */
export const CHECKS_TO_REPORT = 2;

/**
 * Stores one comparison and announces what changed, in one transaction: `reconciliation.drift`
 * once a drift is seen twice in a row with the same amount (a block the indexer has not reached yet
 * shows once, then is indexed) and differs from the one last announced; `reconciliation.cleared`
 * when an announced drift is gone. A pair with nothing held and nothing open leaves no row.
 * Returns the event type recorded, if any, and whether the drift waits for its second look.
 */
export async function recordCheck(db: Db, c: CheckInput): Promise<{ event: EventType | null; awaiting: boolean }> {
  const key = { wallet_id: c.scope.walletId, address: c.scope.address ?? '', asset_key: c.asset.key };
  return db.transaction(async (trx) => {
    const prev = (await trx('reconciliation_checks').where(key).forUpdate().first()) as PreviousRow | undefined;
    const prevDrift = prev ? parseBaseUnits(prev.drift) : 0n;
    const reported = prev?.reported_drift != null ? parseBaseUnits(prev.reported_drift) : null;
    const checks = c.drift === 0n ? 0 : prev && prevDrift === c.drift ? prev.drift_checks + 1 : 1;
    let event: EventType | null = null;
    let nextReported = reported;
    if (c.drift !== 0n && checks >= CHECKS_TO_REPORT && reported !== c.drift) {
      event = 'reconciliation.drift';
      nextReported = c.drift;
    } else if (c.drift === 0n && reported !== null) {
      event = 'reconciliation.cleared';
      nextReported = null;
    }
    const f = c.figures;
    // What the records say about it, since the node last agreed here; kept with the row for the overview.
    const agreedAt = prev?.agreed_at ?? null;
    const explanation = c.drift === 0n ? null : await explainDrift(trx, c, c.scope, c.asset, agreedAt);
    const empty = f.indexed === 0n && f.pending === 0n && f.inFlight === 0n && f.incomingInFlight === 0n && c.onchain === 0n;
    if (empty && c.drift === 0n && nextReported === null) {
      if (prev) await trx('reconciliation_checks').where(key).delete();
    } else {
      const row = {
        ...key,
        company_id: c.scope.companyId,
        chain: c.chain,
        network: c.network,
        indexed: f.indexed.toString(),
        pending: f.pending.toString(),
        in_flight: f.inFlight.toString(),
        incoming_in_flight: f.incomingInFlight.toString(),
        onchain: c.onchain.toString(),
        drift: c.drift.toString(),
        drift_checks: checks,
        reported_drift: nextReported === null ? null : nextReported.toString(),
        // Since when the node has disagreed (kept while the amount changes); null while it agrees.
        drift_since: c.drift === 0n ? null : prevDrift !== 0n && prev?.drift_since ? prev.drift_since : trx.fn.now(),
        checked_at: trx.fn.now(),
        agreed_at: c.drift === 0n ? trx.fn.now() : agreedAt,
        explanation: explanation === null ? null : JSON.stringify(explanation),
      };
      await trx('reconciliation_checks').insert(row).onConflict(['wallet_id', 'address', 'asset_key']).merge();
    }
    if (event) {
      const show = (units: bigint) => fromBaseUnits(units, c.asset.decimals);
      const { key: assetKey, symbol, decimals, contractAddress } = c.asset;
      await recordEvent(trx, {
        type: event,
        chain: c.chain,
        network: c.network,
        companyId: c.scope.companyId,
        walletId: c.scope.walletId,
        data: {
          chain: c.chain,
          network: c.network,
          walletId: c.scope.walletId,
          address: c.scope.address,
          asset: { key: assetKey, symbol, decimals, contractAddress },
          status: event === 'reconciliation.drift' ? 'drift' : 'cleared',
          // The drift announced: signed, beyond what the known causes explain ('0' once cleared).
          amount: show(c.drift),
          indexed: show(f.indexed),
          pending: show(f.pending),
          inFlight: show(f.inFlight),
          onchain: show(c.onchain),
          ...(event === 'reconciliation.cleared' && reported !== null ? { previousDrift: show(reported) } : {}),
          ...(explanation ? { explanation } : {}),
        },
      });
    }
    return { event, awaiting: c.drift !== 0n && checks < CHECKS_TO_REPORT };
  });
}
