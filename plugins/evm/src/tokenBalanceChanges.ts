import type { DetectedTransfer, TokenBalanceChange, TokenDefinition } from '@walletd/plugin-kit';

interface Log {
  address: string;
  topics: string[];
  data: string;
}
interface Receipt {
  status?: string;
  logs: Log[];
}

/**
 * For each (address, token) that `credits` credit, the net of every Transfer log of that token in
 * and out of the address in the block's successful transactions: what the balance must have moved
 * by if the token's logs tell the truth. Outgoing transfers count, so a withdrawal in the same
 * block is no mismatch. Pure (runs in the detect worker); the follower compares it with the node's
 * balances (checkBalances.ts). Empty when nothing is credited in a token: no cost per block.
 */
export function tokenBalanceChanges(
  receipts: readonly Receipt[],
  credits: readonly DetectedTransfer[],
  /** The allow-listed token of a log's contract address (detect.ts' `lastTokenLookup`). */
  tokenOf: (address: string) => TokenDefinition | undefined,
  native: string,
  transferTopic: string,
): TokenBalanceChange[] {
  const net = new Map<string, TokenBalanceChange>();
  // Native credits read no balance: they come from the block's own value transfers (a transaction's
  // value, a trace's call frames outside reverted ones), which the node executed; a token's Transfer
  // log is the token's claim, and only its balance shows whether the claim is what arrived.
  for (const t of credits)
    if (t.assetKey !== native) net.set(`${t.toKey}|${t.assetKey}`, { toKey: t.toKey, assetKey: t.assetKey, delta: 0n });
  if (net.size === 0) return [];
  for (const r of receipts) {
    if (r.status !== '0x1') continue;
    for (const log of r.logs) {
      if (log.topics.length !== 3 || log.topics[0] !== transferTopic || log.data.length !== 66) continue;
      const token = tokenOf(log.address);
      if (!token) continue;
      const into = net.get(`0x${(log.topics[2] as string).slice(26).toLowerCase()}|${token.key}`);
      const outOf = net.get(`0x${(log.topics[1] as string).slice(26).toLowerCase()}|${token.key}`);
      // Most of a busy block's logs touch no credited address: their amount is never read.
      if (!into && !outOf) continue;
      const amount = BigInt(log.data);
      if (into) into.delta += amount;
      if (outOf) outOf.delta -= amount;
    }
  }
  return [...net.values()];
}
