import type { UnsignedWithdrawal } from '@walletd/plugin-kit';
import type { Transaction, TxOutput } from '../encoding/transaction';

/**
 * The unsigned withdrawal, crafted offline from what `build` fetched (the coins and the fee rate):
 * everything `sign` needs without a node. JSON-serialisable: amounts are decimal strings.
 */
export interface LitecoinPayload {
  inputs: { txid: string; vout: number; script: string; value: string; address: string }[];
  /** Recipients in the intent's order, then the change when there is one. */
  outputs: { script: string; value: string }[];
  /** Litoshis per virtual byte. */
  feeRate: string;
  vsize: number;
}

export const payloadOf = (unsigned: UnsignedWithdrawal): LitecoinPayload => unsigned.payload as LitecoinPayload;

/** BIP-125 opt-in replacement: a stuck withdrawal can be fee-bumped. */
export const SEQUENCE = 0xfffffffd;

/** The transaction the payload describes, without signatures. */
export function transactionOf(p: LitecoinPayload): Transaction {
  return {
    version: 2,
    inputs: p.inputs.map((i) => ({ txid: i.txid, vout: i.vout, scriptSig: new Uint8Array(), sequence: SEQUENCE, witness: [] })),
    outputs: p.outputs.map((o): TxOutput => ({ value: BigInt(o.value), script: Buffer.from(o.script, 'hex') })),
    locktime: 0,
  };
}

/** Outpoints as a sorted list, outputs in order: what two transactions must share to pay the same. */
export const spends = (inputs: { txid: string; vout: number }[]): string =>
  inputs
    .map((i) => `${i.txid}:${i.vout}`)
    .sort()
    .join();
export const pays = (outputs: { script: string | Uint8Array; value: string | bigint }[]): string =>
  outputs.map((o) => `${typeof o.script === 'string' ? o.script : Buffer.from(o.script).toString('hex')}:${o.value}`).join();
