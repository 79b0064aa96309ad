import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * One Prometheus registry per process, shared by the roles it runs; served at GET /metrics.
 * Rates (blocks/s, deliveries/s) are Prometheus' `rate()` of the counters.
 */
export interface Metrics {
  registry: Registry;
  chainHead: Gauge<'chain' | 'network'>;
  indexedHeight: Gauge<'chain' | 'network'>;
  lagBlocks: Gauge<'chain' | 'network'>;
  blocksIndexed: Counter<'chain' | 'network'>;
  reorgs: Counter<'chain' | 'network'>;
  deposits: Counter<'chain' | 'network' | 'type'>;
  poolUtilization: Gauge<string>;
  webhookAttempts: Counter<'outcome'>;
  /** 1 while the indexer has stopped a chain (genesis or chain id changed, blocks that do not link). */
  chainHalted: Gauge<'chain' | 'network' | 'reason'>;
  /** 1 while this process holds the chain's indexer lease (exactly one process per chain should). */
  indexerLeader: Gauge<'chain' | 'network'>;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'walletd_' });
  const chain = ['chain', 'network'] as const;
  return {
    registry,
    chainHead: new Gauge({
      name: 'walletd_chain_head',
      help: 'Latest block height reported by the node',
      labelNames: chain,
      registers: [registry],
    }),
    indexedHeight: new Gauge({
      name: 'walletd_chain_indexed_height',
      help: 'Highest block indexed',
      labelNames: chain,
      registers: [registry],
    }),
    lagBlocks: new Gauge({
      name: 'walletd_chain_lag_blocks',
      help: 'Blocks between the head and the indexed height',
      labelNames: chain,
      registers: [registry],
    }),
    blocksIndexed: new Counter({ name: 'walletd_blocks_indexed_total', help: 'Blocks indexed', labelNames: chain, registers: [registry] }),
    reorgs: new Counter({ name: 'walletd_reorgs_total', help: 'Reorgs handled', labelNames: chain, registers: [registry] }),
    deposits: new Counter({
      name: 'walletd_deposit_events_total',
      help: 'Deposit events recorded, by type',
      labelNames: [...chain, 'type'],
      registers: [registry],
    }),
    poolUtilization: new Gauge({
      name: 'walletd_detect_pool_utilization',
      help: 'Busy fraction of the detect worker threads',
      registers: [registry],
    }),
    webhookAttempts: new Counter({
      name: 'walletd_webhook_attempts_total',
      help: 'Webhook delivery attempts, by outcome',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    chainHalted: new Gauge({
      name: 'walletd_chain_halted',
      help: 'The indexer stopped following the chain, by reason (see the README: a stopped chain)',
      labelNames: [...chain, 'reason'],
      registers: [registry],
    }),
    indexerLeader: new Gauge({
      name: 'walletd_indexer_leader',
      help: 'This process holds the chain indexer lease and follows the chain',
      labelNames: chain,
      registers: [registry],
    }),
  };
}
