import type { AssetRef, BlockRef, ChainReader, TokenBalanceChange } from '@walletd/plugin-kit';
import type { EvmReader } from '../reader';

/**
 * `balanceOf(address)` of the token in the state after the block of that hash (selector 0x70a08231
 * + the address as a word; the block named by hash, EIP-1898, so it is the block detect read).
 */
const balanceCall = (token: string, address: string, blockHash: string) => ({
  method: 'eth_call',
  params: [{ to: token, data: `0x70a08231${address.slice(2).toLowerCase().padStart(64, '0')}` }, { blockHash }],
});
const amountOf = (word: string) => (word === '0x' ? 0n : BigInt(word));

/**
 * Per reader: the balance words read (or being read), by token, address and block hash. A
 * catch-up's consecutive blocks crediting one address need the state after block n twice, as
 * block n's "after" and block n+1's "before": the state a hash names never changes, so it is read
 * once (each `eth_call` on a past state cost anvil ~0.7 ms of CPU, issue 41's bench). A failed read
 * leaves the cache, so the block's retry asks again.
 */
const readsOf = new WeakMap<ChainReader, Map<string, Promise<string>>>();
/** Enough for a catch-up window of blocks crediting many addresses; the oldest go first. */
const KEPT = 4096;

function balanceWords(reader: ChainReader, wanted: readonly { token: string; address: string; blockHash: string }[]): Promise<string[]> {
  let reads = readsOf.get(reader);
  if (!reads) {
    reads = new Map();
    readsOf.set(reader, reads);
  }
  const cache = reads;
  const keyOf = (w: { token: string; address: string; blockHash: string }) => `${w.token}|${w.address.toLowerCase()}|${w.blockHash}`;
  const missing = [...new Map(wanted.filter((w) => !cache.has(keyOf(w))).map((w) => [keyOf(w), w])).values()];
  if (missing.length > 0) {
    const batch = (reader as EvmReader).batch<string>(missing.map((w) => balanceCall(w.token, w.address, w.blockHash)));
    missing.forEach((w, i) => {
      const key = keyOf(w);
      const word = batch.then((words) => words[i] as string);
      // Handled here too: a read only another block awaits must not go unhandled when it fails.
      word.catch(() => cache.get(key) === word && cache.delete(key));
      cache.set(key, word);
    });
    for (const key of cache.keys()) {
      if (cache.size <= KEPT) break;
      cache.delete(key);
    }
  }
  return Promise.all(wanted.map((w) => cache.get(keyOf(w)) as Promise<string>));
}

/**
 * The token balance changes of `block` that the node's balances do not bear out: the balance
 * after it minus the one after its parent, against what the logs say (`delta`). A
 * fee-on-transfer token that logs the full amount, or a rebasing one, shows here. Two balances
 * per (address, token) credited, in one JSON-RPC batch (those another block of the catch-up
 * already read are not asked again); only blocks with token credits come here.
 * Needs the node to hold the state of both blocks (a full node keeps the recent ones; a catch-up
 * from far back needs an archive node); a failed read throws and the follower retries the block.
 */
export async function checkBalances(
  reader: ChainReader,
  block: BlockRef,
  changes: readonly (TokenBalanceChange & { asset: AssetRef })[],
): Promise<(TokenBalanceChange & { observed: bigint })[]> {
  const words = await balanceWords(
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
    const observed = amountOf(words[2 * i + 1] as string) - amountOf(words[2 * i] as string);
    return observed === c.delta ? [] : [{ toKey: c.toKey, assetKey: c.assetKey, delta: c.delta, observed }];
  });
}
