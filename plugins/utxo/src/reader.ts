import { type AssetRef, BaseError, type ChainReader, type ReaderOptions, readerJsonRpcClient, retry } from '@walletd/plugin-kit';
import { coinsToUnits } from './coins';
import { frameBlock, frameTransactions } from './detect';

/** The Bitcoin Core JSON-RPC calls the plugin uses (bitcoind, dogecoind, litecoind, or a provider speaking it). */
export const RPC_CALLS = [
  'getblockcount',
  'getblockhash',
  'getblock',
  'getrawmempool',
  'getrawtransaction',
  'scantxoutset',
  'estimatesmartfee',
  'getnetworkinfo',
  'gettxout',
  'sendrawtransaction',
] as const;

export interface UtxoReader extends ChainReader {
  /** A raw JSON-RPC call; the result's text too, for amounts that must not pass through a float. */
  call<T>(method: string, params: unknown[]): Promise<{ result: T; text: string }>;
}

/**
 * `rpcUrl` may carry credentials (http://user:pass@host:8332): they are sent as basic auth, never
 * logged. The match form of an address is its script, so balances use `raw(<script>)`
 * descriptors: they work whatever address encoding the node itself prints.
 */
export function createUtxoReader(options: ReaderOptions & { scriptOf: (address: string) => string }): UtxoReader {
  // The shared client: basic auth from the URL, per-call deadline, reads retried after transport
  // failures (never sendrawtransaction), lossless numbers, the body text kept for amounts.
  const rpc = readerJsonRpcClient(options, '1.0');
  const call = <T>(method: string, params: unknown[]): Promise<{ result: T; text: string }> => rpc.call<T>(method, params);

  // The node runs one UTXO-set scan at a time ("Scan already in progress"): calls from this
  // process queue behind each other, and a scan started by another process is waited out briefly.
  let scanning: Promise<unknown> = Promise.resolve();
  const scan = <T>(params: unknown[]): Promise<{ result: T; text: string }> => {
    // The kit's one retry loop, with this node's own transient answer: 17 to 33 s of pauses in all.
    const next = scanning.then(() =>
      retry(() => call<T>('scantxoutset', params), {
        attempts: 21,
        backoffMs: 100,
        maxBackoffMs: 2000,
        isTransient: (e) => (e as Error).message.includes('Scan already in progress'),
      }),
    );
    scanning = next.catch(() => undefined);
    return next;
  };

  return {
    call: <T>(method: string, params: unknown[]) => (method === 'scantxoutset' ? scan<T>(params) : call<T>(method, params)),
    head: async () => BigInt((await call<number>('getblockcount', [])).result),
    blockHash: async (height) => {
      try {
        return (await call<string>('getblockhash', [Number(height)])).result;
      } catch {
        return null;
      }
    },
    fetchBlock: async (height) => {
      const hash = (await call<string>('getblockhash', [Number(height)])).result;
      const hexBlock = (await call<string>('getblock', [hash, 0])).result;
      return frameBlock(height, Buffer.from(hexBlock, 'hex'));
    },
    mempool: async (seen) => {
      const txids = (await call<string[]>('getrawmempool', [])).result;
      const txs: Uint8Array[] = [];
      for (const txid of txids) {
        if (seen.has(txid)) continue;
        try {
          txs.push(Buffer.from((await call<string>('getrawtransaction', [txid, false])).result, 'hex'));
        } catch {
          // Left the mempool between the two calls (mined or replaced): the next snapshot says which.
        }
      }
      return { txids, raw: frameTransactions(txs) };
    },
    getBalance: async (address: string, asset: AssetRef) => {
      const { text } = await scan<unknown>(['start', [`raw(${options.scriptOf(address)})`]]);
      const m = /"total_amount"\s*:\s*([0-9.eE+-]+)/.exec(text);
      if (!m?.[1]) throw new BaseError('node_error', 'scantxoutset returned no total_amount');
      // Coins have no minimum to keep: the whole total is spendable (dust limits apply per output).
      const total = coinsToUnits(m[1], asset.decimals);
      return { total, spendable: total };
    },
  };
}
