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
 * The token balance changes of `block` that the node's balances do not bear out: the balance
 * after it minus the one after its parent, against what the logs say (`delta`). A
 * fee-on-transfer token that logs the full amount, or a rebasing one, shows here. Two `eth_call`s
 * per (address, token) credited, in one JSON-RPC batch; only blocks with token credits come here.
 * Needs the node to hold the state of both blocks (a full node keeps the recent ones; a catch-up
 * from far back needs an archive node); a failed read throws and the follower retries the block.
 */
export async function checkBalances(
  reader: ChainReader,
  block: BlockRef,
  changes: readonly (TokenBalanceChange & { asset: AssetRef })[],
): Promise<(TokenBalanceChange & { observed: bigint })[]> {
  const words = await (reader as EvmReader).batch<string>(
    changes.flatMap((c) => {
      const token = c.asset.contractAddress as string;
      return [balanceCall(token, c.toKey, block.parentHash), balanceCall(token, c.toKey, block.hash)];
    }),
  );
  return changes.flatMap((c, i) => {
    const observed = amountOf(words[2 * i + 1] as string) - amountOf(words[2 * i] as string);
    return observed === c.delta ? [] : [{ toKey: c.toKey, assetKey: c.assetKey, delta: c.delta, observed }];
  });
}
