import {
  type AssetRef,
  type ChainReader,
  type ReaderOptions,
  concatBytes,
  readerJsonRpcClient,
  wrongHeightError,
} from '@walletd/plugin-kit';
import { TRACE_MEMBER, type TraceMode, fetchTraces, probeTraces } from './traceSource';

const hex = (n: bigint) => `0x${n.toString(16)}`;

/**
 * JSON-RPC reads for the follower. `fetchBlock` returns the response bodies spliced into
 * `{"block":…,"receipts":…,"callTraces"|"flatTraces":…}` without parsing them: the worker thread
 * parses once. The three calls go out together; the traces member is absent with
 * `internalTransfers: "off"`. Needs `eth_getBlockReceipts` (geth, erigon, reth, anvil and the
 * large providers have it) and, by default, one of the trace methods (traceSource.ts).
 */
/** The EVM reader also exposes raw JSON-RPC calls, for the plugin's own withdrawal verbs. */
export interface EvmReader extends ChainReader {
  call<T>(method: string, params: unknown[]): Promise<T>;
  /** Reads in one JSON-RPC batch (call by call where the node refuses batches). */
  batch<T>(calls: readonly { method: string; params: unknown[] }[]): Promise<T[]>;
  /** The balance in base units (native or ERC-20). */
  balanceOf(address: string, asset: AssetRef): Promise<bigint>;
}

export function createEvmReader(options: ReaderOptions): EvmReader {
  // The shared client: per-call deadline, reads retried after transport failures, never a send.
  const rpc = readerJsonRpcClient(options, '2.0');
  const call = async <T>(method: string, params: unknown[]): Promise<T> => (await rpc.call<T>(method, params)).result;

  async function balanceOf(address: string, asset: AssetRef): Promise<bigint> {
    if (asset.contractAddress === null) return BigInt(await call<string>('eth_getBalance', [address, 'latest']));
    // balanceOf(address): selector 0x70a08231 + the address as a 32-byte word.
    const data = `0x70a08231${address.slice(2).toLowerCase().padStart(64, '0')}`;
    const result = await call<string>('eth_call', [{ to: asset.contractAddress, data }, 'latest']);
    return result === '0x' ? 0n : BigInt(result);
  }

  // Chosen once by the probe (kept only once it succeeded: a node that was down is asked again).
  let mode: TraceMode | null = options.internalTransfers === 'off' ? 'off' : null;
  let probing: Promise<TraceMode> | null = null;
  const traceMode = async (): Promise<TraceMode> => {
    if (mode !== null) return mode;
    probing ??= probeTraces(rpc, options.name).finally(() => {
      probing = null;
    });
    mode = await probing;
    return mode;
  };

  return {
    call,
    batch: (calls) => rpc.batch(calls),
    head: async () => BigInt(await call<string>('eth_blockNumber', [])),
    probe: async () => {
      await traceMode();
    },
    fetchBlock: async (height) => {
      const how = await traceMode();
      // Settled into a value, so that a failed block call is the error thrown, not a failed trace.
      const tracing =
        how === 'off'
          ? null
          : fetchTraces(rpc, how, height, options.name).then(
              (bytes) => ({ bytes }),
              (failed: unknown) => ({ failed }),
            );
      // The answers' chunks are copied once, into the block's own buffer (not joined per answer first).
      const [block, receipts] = await Promise.all([
        rpc.callRawParts('eth_getBlockByNumber', [hex(height), true]),
        rpc.callRawParts('eth_getBlockReceipts', [hex(height)]),
      ]);
      if (how === 'off' || tracing === null) return concatBytes(['{"block":', ...block, ',"receipts":', ...receipts, '}']);
      const traces = await tracing;
      if ('failed' in traces) throw traces.failed;
      return concatBytes(['{"block":', ...block, ',"receipts":', ...receipts, `,"${TRACE_MEMBER[how]}":`, ...traces.bytes, '}']);
    },
    balanceOf,
    // An EVM account has no minimum balance: all of it is spendable (gas is the sender's business).
    getBalance: async (address: string, asset: AssetRef) => {
      const total = await balanceOf(address, asset);
      return { total, spendable: total };
    },
    finalized: async () => {
      const block = await call<{ number: string } | null>('eth_getBlockByNumber', ['finalized', false]);
      return block ? BigInt(block.number) : null;
    },
    chainId: async () => BigInt(await call<string>('eth_chainId', [])).toString(),
    blockHash: async (height) => {
      const block = await call<{ hash: string; number: string } | null>('eth_getBlockByNumber', [hex(height), false]);
      // Checked like a fetched block's: a hash of another height would read as a reorg of any depth.
      if (block && BigInt(block.number) !== height)
        throw wrongHeightError(options.name, 'eth_getBlockByNumber', height, BigInt(block.number));
      return block?.hash ?? null;
    },
  };
}
