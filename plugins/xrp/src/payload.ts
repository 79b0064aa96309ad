import { type UnsignedWithdrawal, fromBaseUnits } from '@walletd/plugin-kit';

/** An issued-currency amount as a Payment carries it. */
export interface IssuedAmountJson {
  currency: string;
  issuer: string;
  value: string;
}

/** The Payment exactly as signed (`SigningPubKey` and `TxnSignature` are added by `sign`). */
export interface PaymentJson {
  TransactionType: 'Payment';
  Account: string;
  Destination: string;
  DestinationTag?: number;
  Amount: string | IssuedAmountJson;
  Fee: string;
  Sequence: number;
  LastLedgerSequence: number;
  Memos?: { Memo: { MemoType: string; MemoData: string } }[];
  NetworkID?: number;
}

export interface XrpPayload {
  tx: PaymentJson;
  /** The validated ledger when it was built: `verify` proves absence from there to `LastLedgerSequence`. */
  validatedAtBuild: number;
}

/** How many ledgers a built Payment stays valid (xrpl.js autofill uses the same): about 80 s. */
export const LEDGER_WINDOW = 20;
/**
 * The most a Payment may pay in fee (drops): 0.1 XRP, 10,000 times the 10-drop reference. When the
 * open-ledger fee is higher (the network is flooded) the Payment is built at the cap and queues; it
 * lands or expires at `LastLedgerSequence`.
 */
export const FEE_CAP_DROPS = 100_000n;

export const xrp = (drops: bigint): string => `${fromBaseUnits(drops, 6)} XRP`;
export const payloadOf = (u: UnsignedWithdrawal): XrpPayload => u.payload as XrpPayload;
