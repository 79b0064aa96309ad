import type { DetectContext, DetectResult, DetectedTransfer } from '@walletd/plugin-kit';
import { creditCallTraces, creditFlatTraces } from './detectInternalTransfers';
import { tokenBalanceChanges } from './tokenBalanceChanges';
import { lastTokenLookup } from './lastTokenLookup';
import { BaseError, parseJsonBytes } from '@walletd/plugin-kit';

/**
 * The raw EVM block a follower hands to a worker: the bytes of
 * `{"block": <eth_getBlockByNumber(n, true)>, "receipts": <eth_getBlockReceipts(n)>,
 * "callTraces": <debug_traceBlockByNumber(n, callTracer)> | "flatTraces": <trace_block(n)>}`,
 * assembled from the JSON-RPC results without parsing them on the main thread (no traces member
 * with `internalTransfers: "off"`).
 */
interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  logIndex: string;
}
interface RpcReceipt {
  transactionHash: string;
  blockHash?: string;
  status?: string;
  logs: RpcLog[];
}
interface RpcTx {
  hash: string;
  from: string;
  to: string | null;
  value: string;
}
interface RawEvmBlock {
  block: { number: string; hash: string; parentHash: string; timestamp?: string; transactions: RpcTx[] };
  receipts: RpcReceipt[];
}

/** keccak256("Transfer(address,address,uint256)") */
export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

/** Accepts a bare result or a whole JSON-RPC response (what the reader splices in). */
function unwrap(value: unknown, what: string): unknown {
  if (value && typeof value === 'object' && 'jsonrpc' in value) {
    const r = value as { result?: unknown; error?: { message?: string } };
    if (r.error) throw new BaseError('node_answer_invalid', `node error for ${what}: ${r.error.message ?? 'unknown'}`);
    if (r.result === null || r.result === undefined) throw new BaseError('node_answer_invalid', `node returned no ${what}`);
    return r.result;
  }
  return value;
}

/**
 * Pure and deterministic. The hot path compares lowercase hex strings and slices topics; nothing
 * is checksummed or ABI-decoded here. Credited:
 * - native value of a successful transaction to a watched address (eventIndex 0);
 * - `Transfer(from, to, value)` logs of allow-listed token contracts to a watched address in a
 *   successful transaction (eventIndex 1 + the log's position in the transaction's receipt, which
 *   stays the same if the transaction is mined again in another block).
 * - native value moved by contracts, from the call traces when the block carries them
 *   (detectInternalTransfers.ts: eventIndex 2^30 + the frame's depth-first position).
 * Not credited: reverted transactions (status 0x0), logs of any other contract (fake tokens of
 * the same symbol included), malformed Transfer logs (ERC-721 puts the id in a 4th topic), zero
 * amounts (native or token: address poisoning).
 * Traces that fail or do not match the block throw (`traces_unavailable`): never read as none.
 */
export function detect(raw: Uint8Array, ctx: DetectContext): DetectResult {
  // Not one string of the whole block: over 128 KiB that cost more than the parse (parseJsonBytes.ts).
  const parsed = parseJsonBytes(raw) as { block: unknown; receipts: unknown; callTraces?: unknown; flatTraces?: unknown };
  const block = unwrap(parsed.block, 'block') as RawEvmBlock['block'];
  const receipts = unwrap(parsed.receipts, 'receipts') as RawEvmBlock['receipts'];
  // Block and receipts are two requests: a load balancer or a reorg at the head can answer them
  // from different blocks. Refuse the pair rather than skip a transaction (the follower retries).
  if (receipts.length !== block.transactions.length) {
    throw new BaseError(
      'node_answer_invalid',
      `block ${block.number} has ${block.transactions.length} transactions but ${receipts.length} receipts`,
    );
  }
  const byHash = new Map<string, RpcReceipt>();
  for (const r of receipts) {
    if (r.blockHash !== undefined && r.blockHash !== block.hash)
      throw new BaseError('node_answer_invalid', `receipts of block ${block.number} belong to another block`);
    byHash.set(r.transactionHash, r);
  }
  const transfers: DetectedTransfer[] = [];
  const { watched, tokens } = ctx;
  const tokenOf = lastTokenLookup(tokens);
  const succeeded = block.transactions.map((tx) => {
    const receipt = byHash.get(tx.hash);
    if (!receipt) throw new BaseError('node_answer_invalid', `block ${block.number} lacks the receipt of ${tx.hash}`);
    return receipt.status === '0x1';
  });
  const internal =
    parsed.callTraces !== undefined
      ? creditCallTraces(parsed.callTraces, block.number, block.transactions, succeeded, ctx)
      : parsed.flatTraces !== undefined
        ? creditFlatTraces(parsed.flatTraces, block, block.transactions, succeeded, ctx)
        : null;

  block.transactions.forEach((tx, t) => {
    const receipt = byHash.get(tx.hash) as RpcReceipt;
    // Without status 1 the transaction moved nothing.
    if (!succeeded[t]) return;
    if (tx.to !== null && tx.value !== '0x0') {
      const to = tx.to.toLowerCase();
      if (watched.has(to)) {
        const from = tx.from.toLowerCase();
        transfers.push({
          txHash: tx.hash,
          eventIndex: 0,
          from,
          fromKey: from,
          to,
          toKey: to,
          assetKey: ctx.native.key,
          amount: BigInt(tx.value),
          eventType: 'native_transfer',
        });
      }
    }
    const logs = receipt.logs;
    for (let i = 0; i < logs.length; i++) {
      const log = logs[i] as RpcLog;
      const topics = log.topics;
      if (topics.length !== 3 || topics[0] !== TRANSFER_TOPIC) continue;
      const token = tokenOf(log.address);
      if (!token) continue;
      const to = `0x${(topics[2] as string).slice(26).toLowerCase()}`;
      if (!watched.has(to) || log.data.length !== 66) continue;
      const amount = BigInt(log.data);
      // transfer(deposit, 0) or transferFrom(anyone, deposit, 0) needs no balance nor allowance:
      // a zero log moved nothing and only plants a look-alike sender (address poisoning).
      if (amount === 0n) continue;
      const from = `0x${(topics[1] as string).slice(26).toLowerCase()}`;
      transfers.push({
        txHash: tx.hash,
        eventIndex: i + 1,
        logIndex: Number(log.logIndex),
        from,
        fromKey: from,
        to,
        toKey: to,
        assetKey: token.key,
        amount,
        eventType: 'erc20_transfer',
      });
    }
    const moved = internal?.get(tx.hash);
    if (moved) transfers.push(...moved);
  });
  // What the credited addresses' token balances must have moved by, for the follower's check.
  const balanceChanges = tokenBalanceChanges(receipts, transfers, tokenOf, ctx.native.key, TRANSFER_TOPIC);
  return {
    block: {
      number: BigInt(block.number),
      hash: block.hash,
      parentHash: block.parentHash,
      ...(block.timestamp ? { timestamp: Number(BigInt(block.timestamp)) } : {}),
    },
    transfers,
    ...(balanceChanges.length > 0 ? { balanceChanges } : {}),
  };
}
