import type { UnsignedWithdrawal } from '@walletd/plugin-kit';

/**
 * The unsigned withdrawal, crafted offline from what `build` fetched (the coins and the fee rate):
 * a BIP-174 PSBT that `sign` completes without a node (or any PSBT signer: a hardware wallet,
 * Litecoin Core's `walletprocesspsbt`), and the same coins and outputs spelled out for review.
 * JSON-serialisable: amounts are decimal strings.
 */
export interface LitecoinPayload {
  /** Base64. Each input carries its `witnessUtxo` (script and value): what BIP-143 signs over. */
  psbt: string;
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

/** A transaction's outpoints in the node's form (txid in display order), as bitcoinjs-lib reads them. */
export const outpointsOf = (ins: { hash: Uint8Array; index: number }[]): { txid: string; vout: number }[] =>
  ins.map((i) => ({ txid: Buffer.from(i.hash).reverse().toString('hex'), vout: i.index }));

/** Outpoints as a sorted list, outputs in order: what two transactions must share to pay the same. */
export const spends = (inputs: { txid: string; vout: number }[]): string =>
  inputs
    .map((i) => `${i.txid}:${i.vout}`)
    .sort()
    .join();
export const pays = (outputs: { script: string | Uint8Array; value: string | bigint }[]): string =>
  outputs.map((o) => `${typeof o.script === 'string' ? o.script : Buffer.from(o.script).toString('hex')}:${o.value}`).join();
