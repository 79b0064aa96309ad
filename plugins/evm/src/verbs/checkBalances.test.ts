import { type AssetRef, type ChainReader, NodeCallError } from '@walletd/plugin-kit';
import { BALANCES_AT_CODE } from './balancesAt';
import { checkBalances } from './checkBalances';

const TOKEN = `0x${'a'.repeat(40)}`;
const asset: AssetRef = { key: 'ethereum:devnet:tok', symbol: 'TOK', decimals: 6, contractAddress: TOKEN };
const A = `0x${'1'.repeat(40)}`;
const B = `0x${'2'.repeat(40)}`;
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const block = (n: number) => ({ number: BigInt(n), hash: hash(n), parentHash: hash(n - 1) });
const word = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`;

/** The pairs a BalancesAt call asks (abi.encode(address[] tokens, address[] holders) after the code). */
function pairsOf(data: string): { token: string; holder: string }[] {
  const words = (data.slice(BALANCES_AT_CODE.length).match(/.{64}/g) ?? []).map((w) => `0x${w.slice(24)}`);
  const n = Number(words[2]);
  return Array.from({ length: n }, (_, i) => ({ token: words[3 + i] as string, holder: words[4 + n + i] as string }));
}
/** BalancesAt's answer: abi.encode(uint256[] values, bytes irregular), none irregular. */
function answerOf(values: bigint[]): string {
  const n = values.length;
  const w = (v: bigint | number) => BigInt(v).toString(16).padStart(64, '0');
  return `0x${[w(0x40), w(0x60 + 32 * n), w(n), ...values.map(w), w(n), '00'.repeat(32 * Math.ceil(n / 32))].join('')}`;
}

/**
 * A node double answering BalancesAt calls (and plain `balanceOf` calls) from a table of balances
 * by (address, block hash), recording each batch asked as `holder@hash` per call (BalancesAt: the
 * holders joined by `+`); `fail` makes the next batch fail, `refuse` answers calls without `to`
 * with an RPC error, as a provider that refuses them would. The balance arithmetic and BalancesAt
 * itself are covered on anvil (test/src/integration/evmTokensThatMisreport.test.ts, evmBalancesAt.test.ts);
 * this is the reading of it.
 */
function balancesNode(balances: Record<string, bigint>, options: { refuse?: boolean } = {}) {
  const batches: string[][] = [];
  let fail = false;
  const reader = {
    batch: async (calls: { params: [{ to?: string; data: string }, { blockHash: string }] }[]) => {
      const asked = calls.map((c) => {
        const at = c.params[1].blockHash;
        if (c.params[0].to) return [`0x${c.params[0].data.slice(-40)}@${at}`];
        return pairsOf(c.params[0].data).map((p) => `${p.holder}@${at}`);
      });
      batches.push(asked.map((a, i) => (calls[i]?.params[0].to ? (a[0] as string) : `at:${a.join('+')}`)));
      if (fail) {
        fail = false;
        throw new Error('node busy');
      }
      if (options.refuse && calls.some((c) => !c.params[0].to))
        throw new NodeCallError('eth_call: contract creation refused', { method: 'eth_call', kind: 'rpc', rpcCode: -32602 });
      return asked.map((a, i) =>
        calls[i]?.params[0].to ? word(balances[a[0] as string] ?? 0n) : answerOf(a.map((k) => balances[k] ?? 0n)),
      );
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
    // One BalancesAt call per block side, in one batch; block 10 asks only for its parent's state.
    expect(node.batches).toEqual([[`at:${A}@${hash(10)}`, `at:${A}@${hash(11)}`], [`at:${A}@${hash(9)}`]]);
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

  it('reads every (token, address) of a block side in one call', async () => {
    const node = balancesNode({ [`${A}@${hash(31)}`]: 2n, [`${B}@${hash(31)}`]: 7n });
    const changes = [
      { toKey: A, assetKey: asset.key, delta: 2n, asset },
      { toKey: B, assetKey: asset.key, delta: 7n, asset },
    ];
    expect(await checkBalances(node.reader, block(31), changes)).toEqual([]);
    expect(node.batches).toEqual([[`at:${A}@${hash(30)}+${B}@${hash(30)}`, `at:${A}@${hash(31)}+${B}@${hash(31)}`]]);
  });

  it('reads each balance alone where the node refuses calls without `to`, and judges alike', async () => {
    const node = balancesNode({ [`${A}@${hash(41)}`]: 3n }, { refuse: true });
    const changes = [{ toKey: A, assetKey: asset.key, delta: 5n, asset }];
    expect(await checkBalances(node.reader, block(41), changes)).toEqual([{ toKey: A, assetKey: asset.key, delta: 5n, observed: 3n }]);
    expect(node.batches).toEqual([
      [`at:${A}@${hash(40)}`, `at:${A}@${hash(41)}`],
      [`${A}@${hash(40)}`, `${A}@${hash(41)}`],
    ]);
  });

  it('reads the pairs credited in more than one block along, so the next block finds its "before" read: one call a block', async () => {
    const node = balancesNode({});
    // A and B credited in turns, as the follower bench's blocks do (a different address each block).
    for (const [n, who] of [
      [51, A],
      [52, B],
      [53, A],
      [54, B],
      [55, A],
      [56, B],
    ] as const)
      expect(await checkBalances(node.reader, block(n), [{ toKey: who, assetKey: asset.key, delta: 0n, asset }])).toEqual([]);
    expect(node.batches).toEqual([
      [`at:${A}@${hash(50)}`, `at:${A}@${hash(51)}`],
      [`at:${B}@${hash(51)}`, `at:${B}@${hash(52)}`],
      // A's second block: now read along with every block hash asked.
      [`at:${A}@${hash(52)}`, `at:${A}@${hash(53)}`],
      [`at:${B}@${hash(53)}`, `at:${B}@${hash(54)}+${A}@${hash(54)}`],
      [`at:${A}@${hash(55)}+${B}@${hash(55)}`],
      [`at:${B}@${hash(56)}+${A}@${hash(56)}`],
    ]);
  });
});
