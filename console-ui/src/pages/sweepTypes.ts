import type { ConsoleGasStation, ConsoleSweepRule, WalletSweeps } from '@walletd/schemas';

/** A sweep rule, the wallet's gas station and a wallet's sweeps: the contract in @walletd/schemas. */
export type SweepRule = ConsoleSweepRule;
export type GasStation = ConsoleGasStation;
export type { WalletSweeps };
