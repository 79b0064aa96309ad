import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Chain } from '@walletd/plugin-kit';
import type { ConformanceBlock } from '@walletd/plugin-kit/testing';

/**
 * EVM blocks with call traces for the public kit (issue 41 §1), from blocks a real anvil mined
 * (test/fixtures/ethereum/anvil-internal-transfers.json, test/contracts/Payouts.sol): native coins
 * sent by a contract are credited per frame; a value call under a caught revert and a DELEGATECALL
 * frame are not; a block whose traces failed is refused. The failed answers are shaped here by hand
 * from the recorded block (an RPC error, null, a list shorter than the block's transactions).
 */
const recorded = JSON.parse(
  readFileSync(join(__dirname, '..', '..', '..', 'test', 'fixtures', 'ethereum', 'anvil-internal-transfers.json'), 'utf8'),
);
type Recorded = { block: unknown; receipts: unknown; callTraces: unknown; flatTraces: unknown };
const data = (name: string) => recorded.blocks[name].data as Recorded;
const PAYEES = ['a1', 'a2', 'a3', 'a4', 'a5'].map((b) => `0x${b.repeat(20)}`);
const PAYOUTS: string = recorded.provenance.payouts;

const raw = (d: Recorded, traces: 'callTraces' | 'flatTraces', answer: unknown = d[traces]) =>
  new TextEncoder().encode(JSON.stringify({ block: d.block, receipts: d.receipts, [traces]: answer }));

export function traceBlocksOn(chain: Chain, network: string, nativeKey: string): ConformanceBlock[] {
  const scene = { chain, network, watched: PAYEES };
  const batch = data('batch');
  const batchHash = (batch.block as { transactions: { hash: string }[] }).transactions[0]?.hash as string;
  const paid = PAYEES.map((to, i) => ({
    txHash: batchHash,
    eventIndex: 2 ** 30 + 1 + i,
    to,
    amount: (BigInt(i + 1) * 10n ** 16n).toString(),
    assetKey: nativeKey,
    from: PAYOUTS,
    eventType: 'internal_transfer',
  }));
  const blocks: ConformanceBlock[] = [];
  for (const traces of ['callTraces', 'flatTraces'] as const) {
    blocks.push(
      {
        ...scene,
        name: `${chain}: a batch payout paying 5 addresses in one transaction (anvil, ${traces}) credits each frame`,
        raw: raw(batch, traces),
        expected: paid,
      },
      {
        ...scene,
        name: `${chain}: a value call inside a reverted frame caught by try/catch (anvil, ${traces}) credits nothing`,
        raw: raw(data('caught'), traces),
        expected: [],
      },
      {
        ...scene,
        name: `${chain}: a DELEGATECALL frame into a deposit address showing value (anvil, ${traces}) credits nothing`,
        raw: raw(data('delegateToDeposit'), traces),
        expected: [],
      },
    );
  }
  const forward = data('forward');
  for (const [why, answer] of [
    ['its traces answered an RPC error', { jsonrpc: '2.0', id: 3, error: { code: -32000, message: 'tracing failed' } }],
    ['its traces answered null', { jsonrpc: '2.0', id: 3, result: null }],
    ['its traces list fewer transactions than the block', []],
  ] as const) {
    blocks.push({
      ...scene,
      name: `${chain}: a block whose ${why.slice(4)}`,
      raw: raw(forward, 'callTraces', answer),
      expected: [],
      unreadable: why,
    });
  }
  return blocks;
}
