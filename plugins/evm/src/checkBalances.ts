import type { AssetRef, ChainReader, TokenBalanceChange } from '@walletd/plugin-kit';
import type { EvmReader } from './evmReader';

const hex = (n: bigint) => `0x${n.toString(16)}`;

/** `balanceOf(address)` of the token at a block (selector 0x70a08231 + the address as a word). */
async function balanceAt(reader: EvmReader, token: string, address: string, height: bigint): Promise<bigint> {
  const data = `0x70a08231${address.slice(2).toLowerCase().padStart(64, '0')}`;
  const result = await reader.call<string>('eth_call', [{ to: token, data }, hex(height)]);
  return result === '0x' ? 0n : BigInt(result);
}

/**
 * The token balance changes of block `height` that the node's balances do not bear out: the
 * balance at `height` minus the one at `height - 1`, against what the logs say (`delta`). A
 * fee-on-transfer token that logs the full amount, or a rebasing one, shows here. Two `eth_call`s
 * per (address, token) credited, all at once; only blocks with token credits come here. Needs the
 * node to hold the state of both blocks (a full node keeps the recent ones; a catch-up from far
 * back needs an archive node); a failed read throws and the follower retries the block.
 */
export async function checkBalances(
  reader: ChainReader,
  height: bigint,
  changes: readonly (TokenBalanceChange & { asset: AssetRef })[],
): Promise<(TokenBalanceChange & { observed: bigint })[]> {
  const evm = reader as EvmReader;
  const observed = await Promise.all(
    changes.map(async (c) => {
      const token = c.asset.contractAddress as string;
      const [before, after] = await Promise.all([balanceAt(evm, token, c.toKey, height - 1n), balanceAt(evm, token, c.toKey, height)]);
      return after - before;
    }),
  );
  return changes.flatMap((c, i) => {
    const moved = observed[i] as bigint;
    return moved === c.delta ? [] : [{ toKey: c.toKey, assetKey: c.assetKey, delta: c.delta, observed: moved }];
  });
}
