import type { AssetRef, ChainReader } from '@walletd/plugin-kit';
import { checkBalances } from './checkBalances';

const TOKEN = `0x${'a'.repeat(40)}`;
const asset: AssetRef = { key: 'ethereum:devnet:tok', symbol: 'TOK', decimals: 6, contractAddress: TOKEN };
const A = `0x${'1'.repeat(40)}`;
const B = `0x${'2'.repeat(40)}`;
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const block = (n: number) => ({ number: BigInt(n), hash: hash(n), parentHash: hash(n - 1) });
const word = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`;

/**
 * A node double answering `balanceOf` batches from a table of balances by (address, block hash),
 * recording each batch asked; `fail` makes the next batch fail. The balance arithmetic is covered
 * on anvil (test/src/integration/evmTokensThatMisreport.test.ts); this is the reading of it.
 */
function balancesNode(balances: Record<string, bigint>) {
  const batches: string[][] = [];
  let fail = false;
  const reader = {
    batch: async (calls: { params: [{ data: string }, { blockHash: string }] }[]) => {
      const asked = calls.map((c) => `0x${c.params[0].data.slice(-40)}@${c.params[1].blockHash}`);
      batches.push(asked);
      if (fail) {
        fail = false;
        throw new Error('node busy');
      }
      return asked.map((k) => word(balances[k] ?? 0n));
    },
  } as unknown as ChainReader;
  return { reader, batches, failNext: () => (fail = true) };
}

describe('checkBalances: each (token, address, block) balance read once per reader', () => {
  it('reads the state after block n once for block n and its child, and judges both blocks alike', async () => {
    const node = balancesNode({ [`${A}@${hash(9)}`]: 0n, [`${A}@${hash(10)}`]: 5n, [`${A}@${hash(11)}`]: 8n });
    const changes = (delta: bigint) => [{ toKey: A, assetKey: asset.key, delta, asset }];
    // Block 11 is checked first, as the pipelined catch-up may; block 10 then finds its "after" read.
    expect(await checkBalances(node.reader, block(11), changes(3n))).toEqual([]);
    expect(await checkBalances(node.reader, block(10), changes(6n))).toEqual([{ toKey: A, assetKey: asset.key, delta: 6n, observed: 5n }]);
    expect(node.batches).toEqual([[`${A}@${hash(10)}`, `${A}@${hash(11)}`], [`${A}@${hash(9)}`]]);
  });

  it('shares a read in flight, and asks again after a failed one', async () => {
    const node = balancesNode({ [`${B}@${hash(21)}`]: 4n });
    const changes = [{ toKey: B, assetKey: asset.key, delta: 4n, asset }];
    node.failNext();
    const both = await Promise.allSettled([checkBalances(node.reader, block(21), changes), checkBalances(node.reader, block(21), changes)]);
    expect(both.map((s) => s.status)).toEqual(['rejected', 'rejected']);
    expect(node.batches).toHaveLength(1);
    expect(await checkBalances(node.reader, block(21), changes)).toEqual([]);
    expect(node.batches).toHaveLength(2);
  });
});
