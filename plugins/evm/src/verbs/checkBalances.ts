import type { AssetRef, BlockRef, ChainReader, TokenBalanceChange } from '@walletd/plugin-kit';
import type { EvmReader } from '../reader';
import { type Wanted, readBalances } from './balancesAt';

/**
 * Per reader: the balances read (or being read), by token, address and block hash. A
 * catch-up's consecutive blocks crediting one address need the state after block n twice, as
 * block n's "after" and block n+1's "before": the state a hash names never changes, so it is read
 * once. A failed read leaves the cache, so the block's retry asks again.
 * `credited`: the pairs checked lately, most recent last, with how many blocks credited each.
 */
interface Reads {
  cache: Map<string, Promise<bigint>>;
  credited: Map<string, { token: string; address: string; times: number }>;
}
const readsOf = new WeakMap<ChainReader, Reads>();
/** Enough for a catch-up window of blocks crediting many addresses; the oldest go first. */
const KEPT = 4096;
/** The pairs remembered as credited, the oldest forgotten first. */
const TRACKED = 1024;
/**
 * At most this many pairs credited before in more than one block are read along with a block
 * hash's own pairs, in the same `eth_call`: when the next block credits one of them, its "before"
 * (this state) is already read, one `eth_call` a block instead of two. A pair credited once (a
 * fresh deposit address) is never read along: a balanceOf costs the node little inside a call it
 * makes anyway, an `eth_call` of its own costs its state's setup.
 */
const ALONG = 32;

function readsFor(reader: ChainReader): Reads {
  let reads = readsOf.get(reader);
  if (!reads) {
    reads = { cache: new Map(), credited: new Map() };
    readsOf.set(reader, reads);
  }
  return reads;
}

const pairKey = (token: string, address: string) => `${token}|${address.toLowerCase()}`;

function noteCredited(reads: Reads, pairs: readonly { token: string; address: string }[]): void {
  for (const { token, address } of pairs) {
    const key = pairKey(token, address);
    const times = (reads.credited.get(key)?.times ?? 0) + 1;
    reads.credited.delete(key);
    reads.credited.set(key, { token, address, times });
  }
  for (const key of reads.credited.keys()) {
    if (reads.credited.size <= TRACKED) break;
    reads.credited.delete(key);
  }
}

function balances(reads: Reads, reader: ChainReader, wanted: readonly Wanted[]): Promise<bigint[]> {
  const { cache } = reads;
  const keyOf = (w: Wanted) => `${pairKey(w.token, w.address)}|${w.blockHash}`;
  const missing = new Map(wanted.filter((w) => !cache.has(keyOf(w))).map((w) => [keyOf(w), w]));
  if (missing.size > 0) {
    const along = [...reads.credited.values()].filter((p) => p.times > 1).slice(-ALONG);
    for (const blockHash of new Set([...missing.values()].map((w) => w.blockHash)))
      for (const p of along) {
        const w = { token: p.token, address: p.address, blockHash };
        if (!cache.has(keyOf(w))) missing.set(keyOf(w), w);
      }
    const asked = [...missing.values()];
    const read = readBalances(reader as EvmReader, asked);
    asked.forEach((w, i) => {
      const key = keyOf(w);
      const value = read.then((values) => values[i] as bigint);
      // Handled here too: a read only another block awaits must not go unhandled when it fails.
      value.catch(() => cache.get(key) === value && cache.delete(key));
      cache.set(key, value);
    });
    for (const key of cache.keys()) {
      if (cache.size <= KEPT) break;
      cache.delete(key);
    }
  }
  return Promise.all(wanted.map((w) => cache.get(keyOf(w)) as Promise<bigint>));
}

/**
 * The token balance changes of `block` that the node's balances do not bear out: the balance
 * after it minus the one after its parent, against what the logs say (`delta`). A
 * fee-on-transfer token that logs the full amount, or a rebasing one, shows here. Two balances
 * per (address, token) credited, read by one `eth_call` per block side (readBalances; those another
 * block of the catch-up already read are not asked again, and the pairs credited again and again
 * are read along: ALONG); only blocks with token credits come here.
 * Needs the node to hold the state of both blocks (a full node keeps the recent ones; a catch-up
 * from far back needs an archive node); a failed read throws and the follower retries the block.
 */
export async function checkBalances(
  reader: ChainReader,
  block: BlockRef,
  changes: readonly (TokenBalanceChange & { asset: AssetRef })[],
): Promise<(TokenBalanceChange & { observed: bigint })[]> {
  const reads = readsFor(reader);
  noteCredited(
    reads,
    changes.map((c) => ({ token: c.asset.contractAddress as string, address: c.toKey })),
  );
  const values = await balances(
    reads,
    reader,
    changes.flatMap((c) => {
      const token = c.asset.contractAddress as string;
      return [
        { token, address: c.toKey, blockHash: block.parentHash },
        { token, address: c.toKey, blockHash: block.hash },
      ];
    }),
  );
  return changes.flatMap((c, i) => {
    const observed = (values[2 * i + 1] as bigint) - (values[2 * i] as bigint);
    return observed === c.delta ? [] : [{ toKey: c.toKey, assetKey: c.assetKey, delta: c.delta, observed }];
  });
}
