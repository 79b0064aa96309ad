import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

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
  /** Confirmed records (kind `deposit` or `withdrawal`) a reorg deeper than the threshold took out of their block. */
  deepReorgRetractions: Counter<'chain' | 'network' | 'kind'>;
  deposits: Counter<'chain' | 'network' | 'type'>;
  /** Transfers to company addresses not credited: `zero_amount` (dropped), `balance_mismatch` (held pending). */
  depositsWithheld: Counter<'chain' | 'network' | 'reason'>;
  poolUtilization: Gauge<string>;
  webhookAttempts: Counter<'outcome'>;
  /** Times a webhook endpoint was backed off by its circuit breaker (issue 29). */
  webhookBackoffs: Counter<string>;
  /** Signatures made inside the PKCS#11 token (issue 45 §3), by curve. */
  tokenSignatures: Counter<string>;
  /** Signatures made by a cloud KMS (issue 45 §4), by backend (`aws_kms`) and curve. */
  kmsSignatures: Counter<'backend' | 'curve'>;
  /** By route template (`/v1/wallets/:id`, `unmatched` for no route), never the raw path: bounded label values. */
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  /** Read from the database when /metrics is scraped, so any API process reports the shared queue. */
  deliveriesPending: Gauge<string>;
  oldestDueDeliveryAge: Gauge<string>;
  /** Enabled webhooks backed off right now, read at scrape time. */
  webhooksBackedOff: Gauge<string>;
  withdrawals: Gauge<'status'>;
  /** 1 while the indexer has stopped a chain (genesis or chain id changed, blocks that do not link). */
  chainHalted: Gauge<'chain' | 'network' | 'reason'>;
  /** 1 while this process holds the chain's indexer lease (exactly one process per chain should). */
  indexerLeader: Gauge<'chain' | 'network'>;
  /** Indexer rounds (follow and withdrawal tracking) that failed on the chain's node, by the failure's kind. */
  nodeErrors: Counter<'chain' | 'network' | 'kind'>;
  traceFailures: Counter<'chain' | 'network'>;
  /** Seconds since the newest indexed block's header time, computed at scrape (blockTimes in the indexer sets the time). */
  chainTipTime: Map<string, { chain: string; network: string; seconds: number }>;
  /** From a block's header time to its deposits' `deposit.detected` being recorded, per deposit. */
  depositDetectionDelay: Histogram<'chain' | 'network'>;
  /** Node calls (retries included) by the JSON-RPC method or REST path the transport names. */
  nodeCallDuration: Histogram<'chain' | 'network' | 'method'>;
  /** Spans the OTLP exporter failed to send (traces on, issue 48 §4). */
  traceExportFailures: Counter<string>;
  /** 1 while the embedded PostgreSQL this process supervises runs, 0 while it is down. */
  embeddedPostgresUp: Gauge<string>;
  /** Restart attempts of the embedded PostgreSQL after its postmaster died, by outcome. */
  embeddedPostgresRestarts: Counter<'outcome'>;
  /** 1 while free space on the database's disk is below `database.minFreeBytes` (the indexer pauses). */
  diskBelowFloor: Gauge<string>;
  /** The process clock minus the database's, in seconds, as the database watch last measured it. */
  clockSkewSeconds: Gauge<string>;
  /** Open reconciliation drifts (an address and asset whose node balance the ledger does not explain), read at scrape time. */
  reconciliationDrifts: Gauge<'chain' | 'network'>;
  /** Balance ledger rows that differ from the recomputation from history, as the last check of the chain found them. */
  ledgerDrifts: Gauge<'chain' | 'network'>;
}

/**
 * How often the event-loop delay histogram (`walletd_nodejs_eventloop_lag_*`) samples, in ms.
 * prom-client's default, 10 ms, is a libuv timer waking the process 100 times a second whether or
 * not it has work: 3 ms of CPU a second at rest and half again as many event-loop turns as an API
 * process serving 50 requests a second has of its own (strace, bench/README.md `api`). A stall long
 * enough to matter (tens of ms and more) still shows at 100 ms: it delays the next sample by itself.
 */
export const EVENT_LOOP_SAMPLE_MS = 100;

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'walletd_', eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  const chain = ['chain', 'network'] as const;
  const chainTipTime = new Map<string, { chain: string; network: string; seconds: number }>();
  new Gauge({
    name: 'walletd_chain_tip_age_seconds',
    help: "Seconds since the header time of the newest block indexed (the node's head while caught up), at scrape time",
    labelNames: chain,
    registers: [registry],
    collect() {
      const now = Date.now() / 1000;
      for (const t of chainTipTime.values()) this.set({ chain: t.chain, network: t.network }, Math.max(0, now - t.seconds));
    },
  });
  return {
    registry,
    chainTipTime,
    depositDetectionDelay: new Histogram({
      name: 'walletd_deposit_detection_delay_seconds',
      help: 'From the header time of a deposit block to its deposit.detected event being recorded, per deposit',
      labelNames: chain,
      buckets: [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600],
      registers: [registry],
    }),
    nodeCallDuration: new Histogram({
      name: 'walletd_node_call_duration_seconds',
      help: 'Node calls by JSON-RPC method or REST path (retries included), until answered or failed',
      labelNames: [...chain, 'method'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
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
    deepReorgRetractions: new Counter({
      name: 'walletd_deep_reorg_retractions_total',
      help: 'Confirmed deposits and withdrawals a reorg deeper than the confirmation threshold took out of their block',
      labelNames: [...chain, 'kind'],
      registers: [registry],
    }),
    deposits: new Counter({
      name: 'walletd_deposit_events_total',
      help: 'Deposit events recorded, by type',
      labelNames: [...chain, 'type'],
      registers: [registry],
    }),
    depositsWithheld: new Counter({
      name: 'walletd_deposits_withheld_total',
      help: 'Transfers to company addresses not credited, by reason: zero_amount (dropped), balance_mismatch (held pending: the token balance did not rise by what its logs say)',
      labelNames: [...chain, 'reason'],
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
    webhookBackoffs: new Counter({
      name: 'walletd_webhook_backoffs_total',
      help: 'Times a webhook endpoint was backed off after failed attempts in a row (no attempts to it until the back-off ends)',
      registers: [registry],
    }),
    tokenSignatures: new Counter({
      name: 'walletd_token_signatures_total',
      help: 'Signatures made by keys held in the PKCS#11 token (gas stations with masterKey.gasStationsInToken, addresses made with keyHeldIn token), by curve',
      labelNames: ['curve'],
      registers: [registry],
    }),
    kmsSignatures: new Counter({
      name: 'walletd_kms_signatures_total',
      help: 'Signatures made by keys held in a cloud KMS (addresses made with keyHeldIn kms), by backend and curve',
      labelNames: ['backend', 'curve'],
      registers: [registry],
    }),
    httpRequests: new Counter({
      name: 'walletd_http_requests_total',
      help: 'HTTP requests answered, by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'walletd_http_request_duration_seconds',
      help: 'HTTP request duration until the response is sent, by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    deliveriesPending: new Gauge({
      name: 'walletd_webhook_deliveries_pending',
      help: 'Webhook deliveries waiting for an attempt (due now or scheduled for a retry)',
      registers: [registry],
    }),
    oldestDueDeliveryAge: new Gauge({
      name: 'walletd_webhook_oldest_due_delivery_age_seconds',
      help: 'How long the oldest due pending delivery of an enabled webhook has been due (0 when none is due)',
      registers: [registry],
    }),
    webhooksBackedOff: new Gauge({
      name: 'walletd_webhooks_backed_off',
      help: 'Enabled webhooks whose endpoint is backed off now after failed attempts in a row',
      registers: [registry],
    }),
    withdrawals: new Gauge({
      name: 'walletd_withdrawals',
      help: 'Withdrawals by status',
      labelNames: ['status'],
      registers: [registry],
    }),
    chainHalted: new Gauge({
      name: 'walletd_chain_halted',
      help: 'The indexer stopped following the chain, by reason (see docs/operate/faults.md, A stopped chain)',
      labelNames: [...chain, 'reason'],
      registers: [registry],
    }),
    indexerLeader: new Gauge({
      name: 'walletd_indexer_leader',
      help: 'This process holds the chain indexer lease and follows the chain',
      labelNames: chain,
      registers: [registry],
    }),
    traceFailures: new Counter({
      name: 'walletd_trace_failures_total',
      help: 'EVM blocks whose call traces failed to read or did not match the block (each read again, never committed without them)',
      labelNames: chain,
      registers: [registry],
    }),
    traceExportFailures: new Counter({
      name: 'walletd_trace_export_failures_total',
      help: 'Spans the OpenTelemetry exporter failed to send to the OTLP endpoint (traces on only)',
      registers: [registry],
    }),
    nodeErrors: new Counter({
      name: 'walletd_node_errors_total',
      help: 'Indexer rounds (follow and withdrawal tracking) that failed on the chain node, by kind (unreachable, timeout, http, rpc, too_large, wrong_height, other)',
      labelNames: [...chain, 'kind'],
      registers: [registry],
    }),
    embeddedPostgresUp: new Gauge({
      name: 'walletd_embedded_postgres_up',
      help: 'The embedded PostgreSQL this process supervises is running (0 while it is down and being restarted)',
      registers: [registry],
    }),
    embeddedPostgresRestarts: new Counter({
      name: 'walletd_embedded_postgres_restarts_total',
      help: 'Restart attempts of the embedded PostgreSQL after it stopped, by outcome (restarted, failed)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    clockSkewSeconds: new Gauge({
      name: 'walletd_clock_skew_seconds',
      help: "The process clock minus the database's, in seconds (clock.maxSkewMs bounds it: beyond, /readyz says clock_skew)",
      registers: [registry],
    }),
    diskBelowFloor: new Gauge({
      name: 'walletd_database_disk_below_floor',
      help: 'Free space on the embedded database disk is below database.minFreeBytes: the indexer pauses writes',
      registers: [registry],
    }),
    reconciliationDrifts: new Gauge({
      name: 'walletd_reconciliation_drifts',
      help: 'Open reconciliation drifts: address and asset pairs whose node balance the indexed ledger and its known causes do not explain',
      labelNames: chain,
      registers: [registry],
    }),
    ledgerDrifts: new Gauge({
      name: 'walletd_balance_ledger_drifts',
      help: 'Balance ledger rows (wallet, address, asset) that differ from their recomputation from transfers and withdrawals, at the last check',
      labelNames: chain,
      registers: [registry],
    }),
  };
}
