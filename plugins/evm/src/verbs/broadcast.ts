import { BaseError, type ChainReader, type SignedWithdrawal } from '@walletd/plugin-kit';
import { nodeRefusal } from '../nodeRefusal';
import type { EvmReader } from '../reader';

/** The node knows the transaction (in its pool or in a block). */
async function nodeHas(reader: ChainReader, txHash: string): Promise<boolean> {
  try {
    return (await (reader as EvmReader).call<unknown>('eth_getTransactionByHash', [txHash])) != null;
  } catch {
    return false;
  }
}

export async function broadcastEvmWithdrawal(signed: SignedWithdrawal, reader: ChainReader): Promise<void> {
  let hash: string;
  try {
    hash = await (reader as EvmReader).call<string>('eth_sendRawTransaction', [signed.raw]);
  } catch (e) {
    // The node (or another backend behind the same endpoint) already has exactly these bytes.
    // Sending the same bytes again (a retry after a crash) is not a refusal, however the node
    // words it ("already known" on geth, "transaction already imported" on anvil, "nonce too
    // low" once it is mined): if the node has this very transaction, the broadcast happened.
    if (await nodeHas(reader, signed.txHash)) return;
    throw nodeRefusal(e);
  }
  if (hash.toLowerCase() !== signed.txHash.toLowerCase()) throw new BaseError('node_error', 'the node reported another transaction hash');
}
