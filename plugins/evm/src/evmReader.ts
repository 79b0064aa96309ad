import {
  type AssetRef,
  type ChainReader,
  type ReaderOptions,
  concatBytes,
  createJsonRpcClient,
  wrongHeightError,
} from '@walletd/plugin-kit';

const hex = (n: bigint) => `0x${n.toString(16)}`;

/**
 * JSON-RPC reads for the follower. `fetchBlock` returns the two response bodies spliced into
 * `{"block":…,"receipts":…}` without parsing them: the worker thread parses once.
 * Needs `eth_getBlockReceipts` (geth, erigon, reth, anvil and the large providers have it).
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
  const rpc = createJsonRpcClient({
    url: options.rpcUrl,
    dialect: '2.0',
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.retries !== undefined ? { retries: options.retries } : {}),
    ...(options.maxResponseBytes !== undefined ? { maxResponseBytes: options.maxResponseBytes } : {}),
    ...(options.name !== undefined ? { name: options.name } : {}),
  });
  const call = async <T>(method: string, params: unknown[]): Promise<T> => (await rpc.call<T>(method, params)).result;

  async function balanceOf(address: string, asset: AssetRef): Promise<bigint> {
    if (asset.contractAddress === null) return BigInt(await call<string>('eth_getBalance', [address, 'latest']));
    // balanceOf(address): selector 0x70a08231 + the address as a 32-byte word.
    const data = `0x70a08231${address.slice(2).toLowerCase().padStart(64, '0')}`;
    const result = await call<string>('eth_call', [{ to: asset.contractAddress, data }, 'latest']);
    return result === '0x' ? 0n : BigInt(result);
  }

  return {
    call,
    batch: (calls) => rpc.batch(calls),
    head: async () => BigInt(await call<string>('eth_blockNumber', [])),
    fetchBlock: async (height) => {
      const [block, receipts] = await Promise.all([
        rpc.callRaw('eth_getBlockByNumber', [hex(height), true]),
        rpc.callRaw('eth_getBlockReceipts', [hex(height)]),
      ]);
      return concatBytes(['{"block":', block, ',"receipts":', receipts, '}']);
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
