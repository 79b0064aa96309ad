import type { Coin } from './spendableCoins';

/** The unsigned UTXO transaction: a PSBT plus what a reviewer needs to read it. */
export interface UtxoTxPayload {
  psbt: string;
  inputs: Coin[];
  outputs: { address: string; script: string; value: string; change: boolean }[];
  feeRate: string;
  vsize: number;
}
