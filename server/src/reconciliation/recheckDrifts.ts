import type { Db } from '@walletd/core';
import { type CompareDeps, type CompareTally, type ScopeComparer, emptyTally, scopeComparer } from './compareScopes';
import { poolAddresses } from './nextScopes';
import { CHECKS_TO_REPORT } from './recordCheck';
import type { Scope } from './scopeFigures';

/**
 * The second look: compares again, now, every scope of the chain (of `companyId` only, when given)
 * whose last check saw a drift not yet seen `CHECKS_TO_REPORT` times, so a drift is announced (or
 * found gone: a block the indexer had not read yet) `confirmDelayMs` after it was first seen rather
 * than a whole interval later. The run's cursor is left as it is.
 */
export async function recheckDrifts(
  deps: CompareDeps,
  key: { chain: string; network: string },
  opts: { companyId?: number; compare?: ScopeComparer; shouldStop?: () => boolean } = {},
): Promise<CompareTally> {
  const tally = emptyTally();
  const compare = opts.compare ?? scopeComparer(deps, key);
  if (!compare) return tally;
  const rows = (await deps
    .db('reconciliation_checks')
    .where({ chain: key.chain, network: key.network })
    .modify((q) => (opts.companyId !== undefined ? q.where('company_id', opts.companyId) : q))
    .whereNot('drift', 0)
    .where('drift_checks', '<', CHECKS_TO_REPORT)
    .distinct('wallet_id', 'company_id', 'address')
    .orderBy(['wallet_id', 'address'])) as { wallet_id: number; company_id: number; address: string }[];
  for (const r of rows) {
    if (opts.shouldStop?.()) break;
    await compare(await scopeOf(deps.db, r), tally);
  }
  return tally;
}

async function scopeOf(db: Db, r: { wallet_id: number; company_id: number; address: string }): Promise<Scope> {
  const base = { walletId: r.wallet_id, companyId: r.company_id };
  if (r.address !== '') return { ...base, address: r.address, addresses: [r.address] };
  return { ...base, address: null, addresses: await poolAddresses(db, r.wallet_id) };
}
