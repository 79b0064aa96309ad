import type { DetectContext, DetectResult, DetectedTransfer } from '@walletd/plugin-kit';
import { addressOfScript } from './addresses';
import { readTransaction } from './readTransaction';
import { BufferReader, bitcoin } from './libs';

const { Block } = bitcoin;

/** What `reader.ts` hands the worker: the height (8 bytes, big-endian), then the block as the node serializes it. */
export function frameBlock(height: bigint, block: Uint8Array): Buffer {
  const framed = Buffer.alloc(8 + block.length);
  framed.writeBigUInt64BE(height);
  framed.set(block, 8);
  return framed;
}

/**
 * The detect module (`detectModule`, run in walletd's worker threads): pure, bytes in, transfers
 * out. One transfer per output paying a watched script, keyed by (txid, vout): a vout does not
 * change when the transaction is mined again in another block. The coinbase is skipped (a block
 * reward is not spendable for 100 blocks; nobody deposits through it). Bytes after the last
 * transaction (Litecoin's MWEB extension block) are not read: no transparent output is there.
 * The header and transactions are read by bitcoinjs-lib (`readTransaction` adds MWEB framing).
 */
export function detect(raw: Uint8Array, ctx: DetectContext): DetectResult {
  const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const number = bytes.readBigUInt64BE(0);
  const blockBytes = bytes.subarray(8);
  const header = Block.fromBuffer(blockBytes.subarray(0, 80));
  const block = {
    number,
    hash: header.getId(),
    parentHash: Buffer.from(header.prevHash as Uint8Array)
      .reverse()
      .toString('hex'),
  };
  const r = new BufferReader(blockBytes, 80);
  const count = Number(r.readVarInt());
  let at = r.offset;
  const transfers: DetectedTransfer[] = [];
  for (let t = 0; t < count; t++) {
    const { tx, length } = readTransaction(blockBytes, at);
    at += length;
    if (t === 0) continue;
    let txid: string | undefined;
    tx.outs.forEach((out, vout) => {
      const key = Buffer.from(out.script).toString('hex');
      if (out.value === 0n || !ctx.watched.has(key)) return;
      txid ??= tx.getId();
      transfers.push({
        txHash: txid,
        eventIndex: vout,
        logIndex: vout,
        to: addressOfScript(ctx.chain, ctx.network, out.script) ?? key,
        toKey: key,
        assetKey: ctx.native.key,
        amount: out.value,
        eventType: 'utxo_output',
      });
    });
  }
  return { block, transfers };
}
