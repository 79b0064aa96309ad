import type { Knex } from 'knex';

export interface DeepReorg {
  chain: string;
  network: string;
  /** The common ancestor the follower rewound to. */
  ancestor: bigint;
  /** The height at which the fork was seen. */
  from: bigint;
  retractedTransfers: number[];
  withdrawals: number[];
}

/** The action of the audit row a deep reorg leaves; reconciliation reads it to explain drift. */
export const DEEP_REORG_ACTION = 'chain.deep_reorg';

/**
 * One `audit_log` row (the shape server's `audit()` writes; the indexer cannot import the server)
 * for a reorg that took confirmed records out of their blocks, in the rewind's transaction.
 * Company-less: one reorg can touch several companies' records.
 */
export async function recordDeepReorg(trx: Knex.Transaction, r: DeepReorg): Promise<void> {
  await trx('audit_log').insert({
    company_id: null,
    actor_type: 'system',
    actor_id: null,
    action: DEEP_REORG_ACTION,
    target_type: 'chain',
    target_id: `${r.chain}/${r.network}`,
    ip: null,
    details: {
      chain: r.chain,
      network: r.network,
      ancestor: r.ancestor.toString(),
      from: r.from.toString(),
      retractedTransfers: r.retractedTransfers,
      withdrawals: r.withdrawals,
    },
  });
}
