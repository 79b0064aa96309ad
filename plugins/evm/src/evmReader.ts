import { type AssetRef, BaseError, type ChainReader, type ReaderOptions } from '@walletd/core';

const hex = (n: bigint) => `0x${n.toString(16)}`;

/**
 * JSON-RPC reads for the follower. `fetchBlock` returns the two response bodies spliced into
 * `{"block":…,"receipts":…}` without parsing them: the worker thread parses once.
 * Needs `eth_getBlockReceipts` (geth, erigon, reth, anvil and the large providers have it).
 */
/** The EVM reader also exposes raw JSON-RPC calls, for the plugin's own withdrawal verbs. */
export interface EvmReader extends ChainReader {
  call<T>(method: string, params: unknown[]): Promise<T>;
  /** The balance in base units (native or ERC-20). */
  balanceOf(address: string, asset: AssetRef): Promise<bigint>;
}

export function createEvmReader(options: ReaderOptions): EvmReader {
  const timeoutMs = options.timeoutMs ?? 15_000;
  let id = 0;

  async function post(method: string, params: unknown[]): Promise<string> {
    let res: Response;
    try {
      res = await fetch(options.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (cause) {
      throw new BaseError('node_error', `${method} failed: ${(cause as Error).message}`, { cause });
    }
    const text = await res.text();
    if (!res.ok) throw new BaseError('node_error', `${method} answered HTTP ${res.status}`);
    return text;
  }

  async function call<T>(method: string, params: unknown[]): Promise<T> {
    const body = JSON.parse(await post(method, params)) as { result?: T; error?: { message?: string } };
    if (body.error) throw new BaseError('node_error', `${method}: ${body.error.message ?? 'error'}`);
    return body.result as T;
  }

  async function balanceOf(address: string, asset: AssetRef): Promise<bigint> {
    if (asset.contractAddress === null) return BigInt(await call<string>('eth_getBalance', [address, 'latest']));
    // balanceOf(address): selector 0x70a08231 + the address as a 32-byte word.
    const data = `0x70a08231${address.slice(2).toLowerCase().padStart(64, '0')}`;
    const result = await call<string>('eth_call', [{ to: asset.contractAddress, data }, 'latest']);
    return result === '0x' ? 0n : BigInt(result);
  }

  return {
    call,
    head: async () => BigInt(await call<string>('eth_blockNumber', [])),
    fetchBlock: async (height) => {
      const [block, receipts] = await Promise.all([
        post('eth_getBlockByNumber', [hex(height), true]),
        post('eth_getBlockReceipts', [hex(height)]),
      ]);
      return new TextEncoder().encode(`{"block":${block},"receipts":${receipts}}`);
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
    blockHash: async (height) => (await call<{ hash: string } | null>('eth_getBlockByNumber', [hex(height), false]))?.hash ?? null,
  };
}
