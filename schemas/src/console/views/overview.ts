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

/** An open reconciliation drift (GET /v1/reconciliation's row) with what the records say about it. */
export interface DriftView {
  walletId: number;
  address: string | null;
  asset: { key: string; symbol: string };
  drift: string;
  onchain: string;
  indexed: string;
  explanation: {
    causes: { cause: string; description: string }[];
    transactions: {
      type: string;
      id: number;
      txHash: string | null;
      direction: string;
      amount: string;
      status: string;
      reason: string | null;
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
