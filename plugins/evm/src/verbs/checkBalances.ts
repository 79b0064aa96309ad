import type { AssetRef, BlockRef, ChainReader, TokenBalanceChange } from '@walletd/plugin-kit';
import type { EvmReader } from '../reader';
import { type Wanted, readBalances } from './balancesAt';

/**
 * Per reader: the balances read (or being read), by token, address and block hash. A
 * catch-up's consecutive blocks crediting one address need the state after block n twice, as
 * block n's "after" and block n+1's "before": the state a hash names never changes, so it is read
 * once. A failed read leaves the cache, so the block's retry asks again.
 */
const readsOf = new WeakMap<ChainReader, Map<string, Promise<bigint>>>();
/** Enough for a catch-up window of blocks crediting many addresses; the oldest go first. */
const KEPT = 4096;

function balances(reader: ChainReader, wanted: readonly Wanted[]): Promise<bigint[]> {
  let reads = readsOf.get(reader);
  if (!reads) {
    reads = new Map();
    readsOf.set(reader, reads);
  }
  const cache = reads;
  const keyOf = (w: Wanted) => `${w.token}|${w.address.toLowerCase()}|${w.blockHash}`;
  const missing = [...new Map(wanted.filter((w) => !cache.has(keyOf(w))).map((w) => [keyOf(w), w])).values()];
  if (missing.length > 0) {
    const read = readBalances(reader as EvmReader, missing);
    missing.forEach((w, i) => {
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
 * block of the catch-up already read are not asked again); only blocks with token credits come here.
 * Needs the node to hold the state of both blocks (a full node keeps the recent ones; a catch-up
 * from far back needs an archive node); a failed read throws and the follower retries the block.
 */
export async function checkBalances(
  reader: ChainReader,
  block: BlockRef,
  changes: readonly (TokenBalanceChange & { asset: AssetRef })[],
): Promise<(TokenBalanceChange & { observed: bigint })[]> {
  const values = await balances(
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
