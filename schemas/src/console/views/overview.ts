/**
 * The overview's view types (`GET /console/api/overview`, server/src/company/overviewRoutes.ts):
 * the company's wallets with their balances, each followed chain's health and reconciliation,
 * the deep reorgs of the last day and the open drifts. Types only (see ../views.ts).
 */

/** An asset as the console's answers name it. */
export interface ConsoleAsset {
  key: string;
  symbol: string;
  decimals: number;
}

/** An asset as withdrawals, transactions and sweeps name it (core's AssetRef): with the token contract, null for the native coin. */
export interface ConsoleAssetRef extends ConsoleAsset {
  contractAddress: string | null;
}

/** A wallet as the overview answers it: balances per asset, exact decimal strings. */
export interface OverviewWallet {
  id: number;
  name: string;
  chain: string;
  network: string;
  createdAt: string;
  updatedAt: string;
  balances: { asset: ConsoleAsset; confirmed: string; pending: string; reserved: string; available: string }[];
}

/** One followed chain's indexer, as /readyz judges it. */
export interface ChainHealth {
  chain: string;
  network: string;
  ready: boolean;
  reason?: string;
  nodeReachable: boolean | null;
  head: string | null;
  indexed: string | null;
  lag: string | null;
  ageSeconds: number | null;
  /** Set while the indexer has stopped the chain (its node serves another or an inconsistent chain); `reason` is then its code. */
  halted?: { message: string; since: string };
}

/** A followed chain's reconciliation: open drifts of the company, when it last ran (docs/guide/reconciliation.md). */
export interface ChainReconciliation {
  chain: string;
  network: string;
  openDrifts: number;
  lastRunAt: string | null;
  lastPassAt: string | null;
  lastError: string | null;
}

/** A reorg deeper than the confirmation threshold (the Overview's banner; audit action chain.deep_reorg). */
export interface DeepReorgNotice {
  chain: string;
  network: string;
  at: string;
  ancestor: string;
  from: string;
}

/** A cause the records give for a drift (docs/guide/reconciliation.md: what a drift names). */
export interface DriftCauseView {
  cause: 'reorg' | 'traces_unavailable' | 'chain_stopped' | 'in_flight';
  description: string;
  /** Transfer ids (transactions[].id of type transfer) the cause concerns. */
  transfers?: number[];
  /** Withdrawal ids the cause concerns. */
  withdrawals?: number[];
}

/** An open reconciliation drift (GET /v1/reconciliation's row) with what the records say about it. */
export interface DriftView {
  walletId: number;
  /** The account compared; null for a pooled wallet (its every address summed). */
  address: string | null;
  asset: ConsoleAssetRef;
  indexed: string;
  pending: string;
  inFlight: string;
  onchain: string;
  /** Signed, beyond what the known causes explain; '0' when the node agrees. */
  drift: string;
  open: boolean;
  driftSince: string | null;
  checkedAt: string;
  explanation: {
    /** Since when the transactions are listed: the last check that agreed (null: never seen agreeing). */
    since: string | null;
    causes: DriftCauseView[];
    transactions: {
      type: 'transfer' | 'withdrawal';
      id: number;
      txHash: string | null;
      direction: string;
      amount: string;
      status: string;
      reason: string | null;
      updatedAt: string;
    }[];
  } | null;
}

/** The whole overview answer. */
export interface ConsoleOverview {
  wallets: OverviewWallet[];
  /** Empty when /readyz could not judge the chains. */
  chains: ChainHealth[];
  reconciliation: ChainReconciliation[];
  deepReorgs: DeepReorgNotice[];
  drifts: DriftView[];
}
