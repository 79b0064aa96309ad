/** A sweep rule as the API shows it (schemas: SweepRule). */
export interface SweepRule {
  id: number;
  asset: { key: string; symbol: string };
  destination: string;
  threshold: string;
  minLeft: string;
  trigger: 'schedule' | 'deposit';
  intervalSeconds: number | null;
  enabled: boolean;
  gasDailyCap: string | null;
  /** A consolidation's fee rate (base units per vbyte); null: the node's estimate. */
  feeRate: number | null;
  lastRunAt: string | null;
  lastError: string | null;
}

/** The wallet's gas station (schemas: GasStation). */
export interface GasStation {
  address: string;
  asset: { symbol: string };
  available: string;
  reserved: string;
  spentLast24h: string;
  marginPercent: number;
  estimate: { token: { symbol: string }; topUp: string; topUpFee: string; runway: number } | null;
}

export interface WalletSweeps {
  id: number;
  name: string;
  chain: string;
  network: string;
  /** The chain's sweeps are consolidations (UTXO): its rules take a fee rate, not minLeft or a gas cap. */
  consolidates: boolean;
  rules: SweepRule[];
  station: GasStation | null;
  stationError: string | null;
}
