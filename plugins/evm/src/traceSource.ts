import { type JsonRpcClient, NodeCallError, nodeRefusedError, unreadableBlockError } from '@walletd/plugin-kit';

/**
 * How the node serves a block's call traces, chosen by `probeTraces`:
 * - `callTracer`: `debug_traceBlockByNumber(n, {tracer: "callTracer"})`, one nested call tree per
 *   transaction (geth, erigon, reth, nethermind, besu, anvil);
 * - `flat`: `trace_block(n)`, parity-style flat traces with `traceAddress` (erigon, nethermind,
 *   reth, openethereum, anvil);
 * - `off`: `chains[].internalTransfers: "off"`, no traces read.
 */
export type TraceMode = 'callTracer' | 'flat' | 'off';

const hex = (n: bigint) => `0x${n.toString(16)}`;

/** The member of the spliced raw block that carries the traces, named for their shape. */
export const TRACE_MEMBER: Record<Exclude<TraceMode, 'off'>, string> = { callTracer: 'callTraces', flat: 'flatTraces' };

const request = (mode: Exclude<TraceMode, 'off'>, height: bigint): [string, unknown[]] =>
  mode === 'callTracer' ? ['debug_traceBlockByNumber', [hex(height), { tracer: 'callTracer' }]] : ['trace_block', [hex(height)]];

/** Rate limits and busy nodes answer with an RPC error too: those are retried, never taken for a refusal. */
const BUSY = ['rate limit', 'too many requests', 'limit exceeded', 'try again', 'timeout', 'timed out'];

/**
 * The node said no to the method itself (it lacks it, the provider's plan does not include it, the
 * namespace is not enabled), as opposed to not answering (transport, 5xx, 429, rate limits).
 */
function isRefusal(err: unknown): boolean {
  if (!(err instanceof NodeCallError)) return false;
  const { kind, status, rpcCode } = err.node;
  if (kind === 'http') return status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429;
  if (kind !== 'rpc' || rpcCode === -32005) return false;
  const m = err.message.toLowerCase();
  return !BUSY.some((b) => m.includes(b));
}

/**
 * Asks the node for the head block's traces, `debug_traceBlockByNumber` first, then `trace_block`.
 * Both refused: `nodeRefusedError('traces_refused')` naming the chain and both answers, so the
 * operator enables one (geth `--http.api debug`, erigon/reth `trace`, a provider's trace add-on)
 * or sets `internalTransfers: "off"`. A node that does not answer is its node error (retried).
 */
export async function probeTraces(rpc: JsonRpcClient, name: string | undefined): Promise<Exclude<TraceMode, 'off'>> {
  const head = BigInt((await rpc.call<string>('eth_blockNumber', [])).result);
  const refusals: string[] = [];
  for (const mode of ['callTracer', 'flat'] as const) {
    const [method, params] = request(mode, head);
    try {
      await rpc.callRaw(method, params);
      return mode;
    } catch (err) {
      if (!isRefusal(err)) throw err;
      refusals.push((err as Error).message.slice(0, 200));
    }
  }
  const who = name ?? 'the chain';
  throw nodeRefusedError(
    'traces_refused',
    `${who}: the node serves no call traces (${refusals.join('; ')}); native coins sent by contracts cannot be seen, so the chain is not followed: enable debug_traceBlockByNumber or trace_block on the node (or a provider's trace add-on), or set internalTransfers: "off" for ${who}`,
  );
}

/**
 * The block's traces as the node's unparsed answer, in the chunks it arrived in (`callRawParts`). A failure is a failed read of the block
 * (`traces_unavailable`), never an empty trace; a node that cannot be reached at all, or an answer
 * over `maxResponseBytes`, stays the plain node error it is.
 */
export async function fetchTraces(
  rpc: JsonRpcClient,
  mode: Exclude<TraceMode, 'off'>,
  height: bigint,
  name: string | undefined,
): Promise<readonly Uint8Array[]> {
  const [method, params] = request(mode, height);
  try {
    return await rpc.callRawParts(method, params);
  } catch (err) {
    // Unreachable: the block's calls fail alike. Over the cap: the operator raises maxResponseBytes (answer_too_large).
    if (err instanceof NodeCallError && (err.node.kind === 'unreachable' || err.node.kind === 'too_large')) throw err;
    const who = name ? `${name}: ` : '';
    throw unreadableBlockError('traces_unavailable', `${who}${method} failed for block ${height}: ${(err as Error).message.slice(0, 300)}`);
  }
}
