import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DetectContext, type DetectedTransfer, chainTableOf, isBaseError, readFailureReason } from '@walletd/plugin-kit';
import { createEvmPlugin } from './createEvmPlugin';
import { INTERNAL_EVENT_BASE } from './detectInternalTransfers';
import { detect } from './detect';

// Recorded from a real anvil by test/scripts/record-evm-traces.js (test/contracts/Payouts.sol):
// each block with the node's own block, receipts and both trace shapes, unchanged.
const recorded = JSON.parse(
  readFileSync(join(__dirname, '..', '..', '..', 'test', 'fixtures', 'ethereum', 'anvil-internal-transfers.json'), 'utf8'),
);
type Case = {
  data: {
    block: { hash: string; number: string; transactions: { hash: string }[] };
    receipts: unknown[];
    callTraces: unknown[];
    flatTraces: unknown[];
  };
  expected: { arrived: Record<string, string> };
};
const blocks = recorded.blocks as Record<string, Case>;
const PAYEES = ['a1', 'a2', 'a3', 'a4', 'a5'].map((b) => `0x${b.repeat(20)}`);

const ctx = (watched: string[] = PAYEES): DetectContext => {
  const set = new Set(watched);
  return {
    chain: 'ethereum',
    network: 'mainnet',
    native: chainTableOf(createEvmPlugin().chains).nativeAsset('ethereum', 'mainnet'),
    tokens: new Map(),
    watched: { has: (k) => set.has(k) },
  };
};

type Shape = 'callTraces' | 'flatTraces';
const raw = (c: Case, shape: Shape | null, traces?: unknown) => {
  const body: Record<string, unknown> = { block: c.data.block, receipts: c.data.receipts };
  if (shape) body[shape] = traces === undefined ? c.data[shape] : traces;
  return new TextEncoder().encode(JSON.stringify(body));
};
const credited = (transfers: DetectedTransfer[]) => {
  const sums: Record<string, string> = {};
  for (const t of transfers) sums[t.toKey] = (BigInt(sums[t.toKey] ?? '0') + t.amount).toString();
  return sums;
};
const failure = (f: () => unknown): string | null => {
  try {
    f();
  } catch (err) {
    expect(isBaseError(err)).toBe(true);
    return readFailureReason(err);
  }
  return 'did not throw';
};

describe.each<Shape>(['callTraces', 'flatTraces'])('EVM internal transfers from %s (recorded on anvil)', (shape) => {
  it.each(Object.keys(blocks))('%s: credits exactly what the node says arrived', (name) => {
    const c = blocks[name] as Case;
    const { transfers } = detect(raw(c, shape), ctx());
    expect(credited(transfers)).toEqual(c.expected.arrived);
    for (const t of transfers) {
      expect(t.eventType).toBe('internal_transfer');
      expect(t.eventIndex).toBeGreaterThan(INTERNAL_EVENT_BASE);
      expect(t.assetKey).toBe('ethereum:mainnet:eth');
    }
  });

  it('a batch payout is one transfer per recipient, each with its own eventIndex from the frame path', () => {
    const c = blocks.batch as Case;
    const { transfers } = detect(raw(c, shape), ctx());
    expect(transfers.map((t) => [t.toKey, t.eventIndex, t.amount])).toEqual(
      PAYEES.map((p, i) => [p, INTERNAL_EVENT_BASE + 1 + i, BigInt(i + 1) * 10_000_000_000_000_000n]),
    );
    expect(new Set(transfers.map((t) => t.txHash))).toEqual(new Set([c.data.block.transactions[0]?.hash]));
    // The contract is the sender (the own-movement rule compares it with the recipient's wallet).
    expect(transfers.every((t) => t.fromKey === recorded.provenance.payouts.toLowerCase())).toBe(true);
  });

  it('a value call under a caught revert, a DELEGATECALL frame and a reverted transaction credit nothing', () => {
    for (const name of ['caught', 'delegateToDeposit', 'reverted'])
      expect(detect(raw(blocks[name] as Case, shape), ctx()).transfers).toEqual([]);
  });

  it('only watched recipients are credited', () => {
    const { transfers } = detect(raw(blocks.batch as Case, shape), ctx([PAYEES[2] as string]));
    expect(transfers.map((t) => t.toKey)).toEqual([PAYEES[2]]);
  });

  it('null, an error answer or a list of another length is a failed read (traces_unavailable), never "no transfers"', () => {
    const c = blocks.forward as Case;
    expect(failure(() => detect(raw(c, shape, null), ctx()))).toBe('traces_unavailable');
    expect(failure(() => detect(raw(c, shape, { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'boom' } }), ctx()))).toBe(
      'traces_unavailable',
    );
    expect(failure(() => detect(raw(c, shape, { jsonrpc: '2.0', id: 1, result: null }), ctx()))).toBe('traces_unavailable');
    expect(failure(() => detect(raw(c, shape, []), ctx()))).toBe('traces_unavailable');
  });

  it('traces of another block are refused', () => {
    // Hand-made: the forward block's transaction with the traces of the batch block.
    expect(failure(() => detect(raw(blocks.forward as Case, shape, (blocks.batch as Case).data[shape]), ctx()))).toBe('traces_unavailable');
  });
});

describe('EVM internal transfers: the two trace shapes agree', () => {
  it.each(Object.keys(blocks))('%s: same transfers, same eventIndex', (name) => {
    const c = blocks[name] as Case;
    expect(detect(raw(c, 'flatTraces'), ctx()).transfers).toEqual(detect(raw(c, 'callTraces'), ctx()).transfers);
  });

  it('without traces (internalTransfers off) nothing internal is credited', () => {
    expect(detect(raw(blocks.batch as Case, null), ctx()).transfers).toEqual([]);
  });

  it('callTracer: an item carrying an error instead of a result is a failed read', () => {
    // Hand-made from the forward block: geth answers a transaction it could not trace this way.
    const c = blocks.forward as Case;
    const item = { txHash: c.data.block.transactions[0]?.hash, error: 'execution timeout' };
    expect(failure(() => detect(raw(c, 'callTraces', [item]), ctx()))).toBe('traces_unavailable');
  });

  it('flat traces: a transaction without its root trace, or a trace of another block hash, is a failed read', () => {
    // Hand-made from the batch block's recorded flat traces.
    const c = blocks.batch as Case;
    const flat = c.data.flatTraces as { traceAddress: number[]; blockHash: string }[];
    expect(
      failure(() =>
        detect(
          raw(
            c,
            'flatTraces',
            flat.filter((t) => t.traceAddress.length > 0),
          ),
          ctx(),
        ),
      ),
    ).toBe('traces_unavailable');
    expect(
      failure(() =>
        detect(
          raw(
            c,
            'flatTraces',
            flat.map((t) => ({ ...t, blockHash: `0x${'11'.repeat(32)}` })),
          ),
          ctx(),
        ),
      ),
    ).toBe('traces_unavailable');
  });

  it('flat traces: block rewards (no transaction) are skipped', () => {
    // Hand-made: a pre-merge reward trace paying a watched address is not a deposit.
    const c = blocks.forward as Case;
    const reward = {
      type: 'reward',
      action: { author: PAYEES[0], rewardType: 'block', value: '0x1bc16d674ec80000' },
      traceAddress: [],
      transactionHash: null,
      transactionPosition: null,
      blockHash: c.data.block.hash,
    };
    expect(credited(detect(raw(c, 'flatTraces', [...c.data.flatTraces, reward]), ctx()).transfers)).toEqual(c.expected.arrived);
  });
});
