import { NodeCallError } from '@walletd/plugin-kit';
import type { UtxoReader } from './reader';

/** Readers whose node refused getrawtransaction's block hash once: asked without it from then on. */
const refusesBlockHash = new WeakSet<UtxoReader>();

/**
 * The raw transaction `txid`, mined in block `blockHash`. Bitcoin Core 0.16+ takes the block hash
 * as getrawtransaction's third parameter and then finds the transaction without -txindex. Dogecoin
 * Core 1.14 (Bitcoin Core 0.14) takes `(txid, verbose)` only, and answers a third parameter with
 * its usage text as RPC_MISC_ERROR (-1): there the transaction is asked for by id alone, which that
 * node answers for a transaction with an unspent output (its "DEPRECATED" fallback through the UTXO
 * set) or with -txindex. Both callers ask for such a transaction: build for the coins it spends,
 * verify for a transaction `gettxout` just found an unspent output of.
 */
export async function rawTransactionIn(reader: UtxoReader, txid: string, blockHash: string): Promise<string> {
  if (!refusesBlockHash.has(reader)) {
    try {
      return (await reader.call<string>('getrawtransaction', [txid, false, blockHash])).result;
    } catch (e) {
      if (!(e instanceof NodeCallError) || !refusesThirdParameter(e)) throw e;
      refusesBlockHash.add(reader);
    }
  }
  return (await reader.call<string>('getrawtransaction', [txid, false])).result;
}

/** A usage answer (RPC_MISC_ERROR, or JSON-RPC's invalid params): the node takes fewer parameters. */
const refusesThirdParameter = (e: NodeCallError): boolean => e.node.kind === 'rpc' && (e.node.rpcCode === -1 || e.node.rpcCode === -32602);
