import type { ChainSettings, Db } from '@walletd/core';

export interface HaltedChain {
  chain: string;
  network: string;
  reason: string;
  message: string;
  since: string;
}

/**
 * Chains the indexer has stopped (it writes `followed_chains.halted_*`; see the indexer's
 * chainHalt.ts), among those this process is configured for: a chain removed from the config
 * does not keep the service unready. Read from the database so an API-only process reports what
 * the indexer process decided.
 */
export async function haltedChains(db: Db, chains: Pick<ChainSettings, 'chain' | 'network'>[]): Promise<HaltedChain[]> {
  if (chains.length === 0) return [];
  const rows = (await db('followed_chains')
    .whereNotNull('halted_at')
    .whereIn(
      ['chain', 'network'],
      chains.map((c) => [c.chain, c.network]),
    )
    .orderBy(['chain', 'network'])
    .select('chain', 'network', 'halted_code', 'halted_message', 'halted_at')) as {
    chain: string;
    network: string;
    halted_code: string;
    halted_message: string;
    halted_at: Date;
  }[];
  return rows.map((r) => ({
    chain: r.chain,
    network: r.network,
    reason: r.halted_code,
    message: r.halted_message,
    since: r.halted_at.toISOString(),
  }));
}
