import assert from 'node:assert/strict';
import type { Chain } from '../chains';
import type { ChainPlugin, ConfirmInput } from '../contract';
import type { ConformanceCheck } from './suite';

const HEAD = 1_000n;

/** Decisions as `id → confirmations` for the confirmed ones. */
function confirmedOf(plugin: ChainPlugin, input: ConfirmInput): Map<number, number> {
  const first = plugin.confirm(input);
  assert.deepEqual(plugin.confirm(input), first, 'confirm is not pure: the same input gave another answer');
  return new Map(first.filter((d) => d.status === 'confirmed').map((d) => [d.id, d.confirmations]));
}

/**
 * The depth rule at a threshold (the network's default, and a high one): a transfer `threshold` blocks deep (its own
 * block counts) is confirmed with exactly that many confirmations, one block less deep is not, and
 * a transfer in no block never is. Under `finalized`, only what the node's finalized block covers.
 */
function ruleHolds(plugin: ChainPlugin, threshold: number): void {
  assert.ok(Number.isInteger(threshold) && threshold >= 1, `default confirmations ${threshold}: a deposit would be final in no block`);
  const deep = HEAD - BigInt(threshold) + 1n;
  const pending = [
    { id: 1, blockNumber: deep },
    { id: 2, blockNumber: deep + 1n },
    { id: 3, blockNumber: null },
  ];
  const byDepth = confirmedOf(plugin, { pending, head: HEAD, finalized: null, threshold, finality: 'confirmations' });
  assert.deepEqual([...byDepth], [[1, threshold]], `threshold ${threshold} at head ${HEAD}: confirmed ${JSON.stringify([...byDepth])}`);
  const unfinalized = confirmedOf(plugin, { pending, head: HEAD, finalized: null, threshold, finality: 'finalized' });
  assert.deepEqual([...unfinalized], [], 'finalized: confirmed without a finalized block');
  const finalized = confirmedOf(plugin, { pending, head: HEAD, finalized: deep, threshold, finality: 'finalized' });
  assert.deepEqual([...finalized], [[1, threshold]], `finalized at ${deep}: confirmed ${JSON.stringify([...finalized])}`);
}

export function finalityChecks(plugin: ChainPlugin, targets: { chain: Chain; network: string }[]): ConformanceCheck[] {
  return targets.map((t) => ({
    name: `${t.chain}/${t.network}: nothing is confirmed early (the network's threshold and finality rule), nothing in no block ever`,
    run: () => {
      const network = plugin.chains.find((c) => c.chain === t.chain)?.networks.find((n) => n.network === t.network);
      assert.ok(network, `${plugin.name} does not declare ${t.chain}/${t.network}`);
      ruleHolds(plugin, network.defaultConfirmations);
      // A high threshold too: a rule that ignores the threshold passes at 1.
      ruleHolds(plugin, 64);
    },
  }));
}
