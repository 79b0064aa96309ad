/**
 * The sweeps page's answer (`GET /console/api/sweeps`, server/src/sweeps/sweepRoutes.ts): each
 * wallet's rules and gas station. Types only (see ../views.ts).
 */
import type { ConsoleAssetRef } from './overview';

/** A sweep rule as the API shows it (`/v1/wallets/:id/sweep-rules`; server/src/sweeps/sweepRule.ts). */
export interface ConsoleSweepRule {
  id: number;
  walletId: number;
  asset: ConsoleAssetRef;
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
  createdAt: string;
  updatedAt: string;
}

/** The wallet's gas station (`/v1/wallets/:id/gas-station`; server/src/sweeps/gasStation/gasStationView.ts). */
export interface ConsoleGasStation {
  walletId: number;
  chain: string;
  network: string;
  address: string;
  path: string;
  /** Where its key is: derived from the wallet's mnemonic, or generated and signing in the PKCS#11 token. */
  keyHeldIn: 'wallet' | 'token' | 'kms';
  asset: ConsoleAssetRef;
  confirmed: string;
  reserved: string;
  available: string;
  marginPercent: number;
  /** What gas top-ups took or hold from the station in the last 24 hours (every rule of the wallet). */
  spentLast24h: string;
  /** One top-up at the current fee, for the wallet's first token sweep rule; null while nothing holds its token. */
  estimate: { ruleId: number; token: ConsoleAssetRef; sweepFee: string; topUp: string; topUpFee: string; runway: number } | null;
}

/** One wallet on the sweeps page: its rules and, once it has one, its gas station (or why it cannot be read now). */
export interface WalletSweeps {
  id: number;
  name: string;
  chain: string;
  network: string;
  /** The chain's sweeps are consolidations (UTXO): its rules take a fee rate, not minLeft or a gas cap. */
  consolidates: boolean;
  rules: ConsoleSweepRule[];
  station: ConsoleGasStation | null;
  stationError: string | null;
}

/** The whole answer. */
export interface ConsoleSweeps {
  wallets: WalletSweeps[];
}
