import { type DetectContext, type DetectedTransfer, unreadableBlockError } from '@walletd/plugin-kit';

/**
 * Native value moved by contracts, read from the block's call traces (issue 41 §1).
 *
 * `eventIndex` of an internal transfer: `INTERNAL_EVENT_BASE` + the frame's position in its
 * transaction's call tree read depth-first (the root frame is 0 and never credited: its value is
 * the transaction's own, eventIndex 0). The position follows from the frame's path (the
 * `traceAddress` of flat traces), so the same execution mined again in another block keeps it; it
 * stays clear of 0 and of the token logs' 1 + log position (a transaction logs far fewer than 2^30).
 */
export const INTERNAL_EVENT_BASE = 2 ** 30;

export interface TracedTx {
  hash: string;
}

/** `debug_traceBlockByNumber` with `callTracer`: one tree per transaction, in block order. */
interface CallFrame {
  type: string;
  from: string;
  to?: string;
  value?: string;
  error?: string;
  calls?: CallFrame[];
}
interface CallTraceItem {
  txHash?: string;
  result?: CallFrame;
  error?: string;
}

/** `trace_block`: every frame of the block, depth-first per transaction, with its path. */
interface FlatTrace {
  type: string;
  action: { callType?: string; from?: string; to?: string; value?: string; address?: string; refundAddress?: string; balance?: string };
  result?: { address?: string } | null;
  error?: string;
  traceAddress: number[];
  transactionHash?: string | null;
  transactionPosition?: number | null;
  blockHash?: string;
}

/** Frame kinds whose value moves to `to`; DELEGATECALL and CALLCODE run code with the caller's balance, STATICCALL moves none. */
const VALUE_FRAMES = new Set(['CALL', 'CREATE', 'CREATE2', 'SELFDESTRUCT']);

const traceFailure = (block: string, why: string) =>
  unreadableBlockError('traces_unavailable', `the call traces of block ${block} are unusable: ${why}; the block is read again`);

/** The trace member as the worker got it: the node's whole JSON-RPC answer, or a bare result. */
function traceResult(value: unknown, block: string): unknown[] {
  let result = value;
  if (value && typeof value === 'object' && 'jsonrpc' in value) {
    const r = value as { result?: unknown; error?: { message?: string } };
    if (r.error) throw traceFailure(block, `node error: ${r.error.message ?? 'unknown'}`);
    result = r.result;
  }
  if (!Array.isArray(result)) throw traceFailure(block, result === null || result === undefined ? 'the node returned none' : 'not a list');
  return result;
}

function credit(
  out: DetectedTransfer[],
  ctx: DetectContext,
  txHash: string,
  ordinal: number,
  from: string | undefined,
  to: string | undefined,
  value: string | undefined,
): void {
  if (!to || !from || !value) return;
  const toKey = to.toLowerCase();
  if (!ctx.watched.has(toKey)) return;
  const amount = BigInt(value);
  if (amount === 0n) return;
  const fromKey = from.toLowerCase();
  out.push({
    txHash,
    eventIndex: INTERNAL_EVENT_BASE + ordinal,
    from: fromKey,
    fromKey,
    to: toKey,
    toKey,
    assetKey: ctx.native.key,
    amount,
    eventType: 'internal_transfer',
  });
}

/**
 * Credits from `callTracer` trees. `succeeded[i]`: transaction i's receipt status is 0x1. A frame
 * is credited only if neither it nor any ancestor has an `error`: a call caught by try/catch shows
 * the error on the reverted frame only, and the value calls under it show none.
 */
export function creditCallTraces(
  raw: unknown,
  block: string,
  txs: TracedTx[],
  succeeded: boolean[],
  ctx: DetectContext,
): Map<string, DetectedTransfer[]> {
  const items = traceResult(raw, block) as CallTraceItem[];
  if (items.length !== txs.length) throw traceFailure(block, `${items.length} traces for ${txs.length} transactions`);
  const byTx = new Map<string, DetectedTransfer[]>();
  items.forEach((item, i) => {
    const tx = txs[i] as TracedTx;
    if (item?.txHash !== undefined && item.txHash !== tx.hash) throw traceFailure(block, `trace ${i} is of ${item.txHash}, not ${tx.hash}`);
    if (!item?.result || typeof item.result !== 'object')
      throw traceFailure(block, `no trace for ${tx.hash}${item?.error ? ` (${item.error})` : ''}`);
    if (!succeeded[i]) return;
    const out: DetectedTransfer[] = [];
    let ordinal = 0;
    // Depth-first, children in order; a frame's `undone` says it or an ancestor reverted.
    const stack: { frame: CallFrame; undone: boolean }[] = [{ frame: item.result, undone: false }];
    while (stack.length > 0) {
      const { frame, undone: parentUndone } = stack.pop() as { frame: CallFrame; undone: boolean };
      const position = ordinal++;
      const undone = parentUndone || frame.error !== undefined;
      if (position > 0 && !undone && VALUE_FRAMES.has(frame.type)) credit(out, ctx, tx.hash, position, frame.from, frame.to, frame.value);
      const calls = frame.calls ?? [];
      for (let c = calls.length - 1; c >= 0; c--) stack.push({ frame: calls[c] as CallFrame, undone });
    }
    if (out.length > 0) byTx.set(tx.hash, out);
  });
  return byTx;
}

/** The recipient of a flat trace's value, by its kind (a create's new contract, a selfdestruct's heir). */
function flatValueMove(t: FlatTrace): { from?: string; to?: string; value?: string } | null {
  if (t.type === 'call') return t.action.callType === 'call' ? { from: t.action.from, to: t.action.to, value: t.action.value } : null;
  if (t.type === 'create' || t.type === 'create2') return { from: t.action.from, to: t.result?.address, value: t.action.value };
  if (t.type === 'suicide' || t.type === 'selfdestruct')
    return { from: t.action.address, to: t.action.refundAddress, value: t.action.balance };
  return null;
}

/**
 * Credits from `trace_block` flat traces: the same rule, the ancestors found by `traceAddress`
 * (depth-first order, so a frame's parent is the last frame seen one level up). Every transaction
 * must have its root trace, of this block.
 */
export function creditFlatTraces(
  raw: unknown,
  block: { number: string; hash: string },
  txs: TracedTx[],
  succeeded: boolean[],
  ctx: DetectContext,
): Map<string, DetectedTransfer[]> {
  const traces = traceResult(raw, block.number) as FlatTrace[];
  const byTx = new Map<string, DetectedTransfer[]>();
  const rooted = new Array<boolean>(txs.length).fill(false);
  let position = -1;
  let ordinal = 0;
  let undoneAt: boolean[] = [];
  for (const t of traces) {
    // Block and uncle rewards (pre-merge) belong to no transaction.
    if (t.transactionHash === undefined || t.transactionHash === null) continue;
    if (t.blockHash !== undefined && t.blockHash !== block.hash) throw traceFailure(block.number, `a trace of block ${t.blockHash}`);
    const at = Number(t.transactionPosition);
    const tx = txs[at];
    if (!tx || tx.hash !== t.transactionHash)
      throw traceFailure(block.number, `trace of ${t.transactionHash} at position ${t.transactionPosition}`);
    const depth = t.traceAddress.length;
    if (depth === 0) {
      if (rooted[at]) throw traceFailure(block.number, `two root traces for ${tx.hash}`);
      rooted[at] = true;
      position = at;
      ordinal = 0;
      undoneAt = [];
    } else if (at !== position) throw traceFailure(block.number, `a trace of ${tx.hash} before its root`);
    const undone = (depth > 0 && undoneAt[depth - 1] === true) || t.error !== undefined;
    undoneAt[depth] = undone;
    const frameOrdinal = ordinal++;
    if (depth === 0 || undone || !succeeded[at]) continue;
    const move = flatValueMove(t);
    if (!move) continue;
    const out = byTx.get(tx.hash) ?? [];
    credit(out, ctx, tx.hash, frameOrdinal, move.from, move.to, move.value);
    if (out.length > 0) byTx.set(tx.hash, out);
  }
  const missing = rooted.indexOf(false);
  if (missing >= 0) throw traceFailure(block.number, `no trace for ${(txs[missing] as TracedTx).hash}`);
  return byTx;
}
