import { bitcoin } from './libs';
import type { UtxoNetwork } from './networks';
import { rawTransactionIn } from './rawTransaction';
import type { Coin } from './spendableCoins';
import type { UtxoReader } from './reader';

/**
 * The unsigned PSBT of chosen coins and outputs. Legacy (P2PKH) inputs sign over the whole
 * previous transaction, fetched here (`c.prevTx`, kept in the payload for an offline signer).
 */
export async function unsignedPsbt(
  reader: UtxoReader,
  net: UtxoNetwork,
  chosen: Coin[],
  outputs: { script: string; value: string }[],
): Promise<string> {
  for (const c of chosen) {
    if (c.script.startsWith('0014')) continue;
    // With the block hash, getrawtransaction works on nodes without -txindex (by id alone on
    // a node that takes no block hash: the coin is unspent, rawTransaction.ts).
    const block = (await reader.call<string>('getblockhash', [c.height])).result;
    c.prevTx = await rawTransactionIn(reader, c.txid, block);
  }
  const psbt = new bitcoin.Psbt({ network: net.params });
  for (const c of chosen) {
    psbt.addInput({
      hash: c.txid,
      index: c.vout,
      sequence: 0xfffffffd, // BIP-125: a stuck withdrawal can be fee-bumped
      ...(c.prevTx
        ? { nonWitnessUtxo: Buffer.from(c.prevTx, 'hex') }
        : { witnessUtxo: { script: Buffer.from(c.script, 'hex'), value: BigInt(c.value) } }),
    });
  }
  for (const o of outputs) psbt.addOutput({ script: Buffer.from(o.script, 'hex'), value: BigInt(o.value) });
  return psbt.toBase64();
}
