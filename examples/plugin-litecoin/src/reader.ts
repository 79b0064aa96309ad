import { type AssetRef, BaseError, type ChainReader, type ReaderOptions, readerJsonRpcClient, toBaseUnits } from '@walletd/plugin-kit';
import { matchKeyOf } from './addresses';
import { frameBlock } from './detect';

/** A coin an address holds, as `scantxoutset` lists it. */
export interface Unspent {
  txid: string;
  vout: number;
  /** Output script, hex (the match form of the address holding it). */
  script: string;
  value: bigint;
  height: number;
}

export interface LitecoinReader extends ChainReader {
  call<T>(method: string, params: unknown[]): Promise<T>;
  /** The confirmed coins of these output scripts (hex). */
  unspent(scripts: string[]): Promise<Unspent[]>;
}

/**
 * Litecoin Core's JSON-RPC through the kit's client (basic auth from the URL, deadlines, retried
 * reads, `sendrawtransaction` never repeated, coins parsed without a float). Balances and coins
 * come from `scantxoutset` over `raw(<script>)` descriptors, so no node wallet is involved;
 * `verify` needs the node to run with `-txindex=1`.
 */
export function createLitecoinReader(chain: string, network: string, options: ReaderOptions): LitecoinReader {
  const rpc = readerJsonRpcClient(options, '1.0');
  const call = async <T>(method: string, params: unknown[]): Promise<T> => (await rpc.call<T>(method, params)).result;

  // The node runs one UTXO-set scan at a time ("Scan already in progress"): this process queues its
  // own, and waits out one another process started.
  let scanning: Promise<unknown> = Promise.resolve();
  const scan = (scripts: string[]) => {
    const next = scanning.then(async () => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await call<{ unspents: { txid: string; vout: number; scriptPubKey: string; amount: string | number; height: number }[] }>(
            'scantxoutset',
            ['start', scripts.map((s) => `raw(${s})`)],
          );
        } catch (e) {
          if (attempt >= 20 || !(e as Error).message.includes('Scan already in progress')) throw e;
          await new Promise((done) => setTimeout(done, 100 * (attempt + 1)));
        }
      }
    });
    scanning = next.catch(() => undefined);
    return next;
  };
  const unspent = async (scripts: string[]): Promise<Unspent[]> =>
    (await scan(scripts)).unspents.map((u) => ({
      txid: u.txid,
      vout: u.vout,
      script: u.scriptPubKey,
      value: toBaseUnits(String(u.amount), 8),
      height: u.height,
    }));

  return {
    call,
    unspent,
    head: async () => BigInt(await call<number>('getblockcount', [])),
    blockHash: async (height) => {
      try {
        return await call<string>('getblockhash', [Number(height)]);
      } catch (e) {
        // -8: height out of range, the node has no block there (yet).
        if ((e as { node?: { rpcCode?: number } }).node?.rpcCode === -8) return null;
        throw e;
      }
    },
    fetchBlock: async (height) => {
      const hash = await call<string>('getblockhash', [Number(height)]);
      return frameBlock(height, Buffer.from(await call<string>('getblock', [hash, 0]), 'hex'));
    },
    getBalance: async (address: string, asset: AssetRef) => {
      if (asset.contractAddress !== null) throw new BaseError('unknown_asset', 'litecoin has no tokens');
      const total = (await unspent([matchKeyOf(chain, network, address)])).reduce((s, u) => s + u.value, 0n);
      // Coins keep no minimum balance: all of it is spendable (dust limits apply per output).
      return { total, spendable: total };
    },
  };
}
