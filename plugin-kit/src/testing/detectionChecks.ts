import assert from 'node:assert/strict';
import { chainTableOf } from '../chains';
import type { ChainPlugin, DetectContext, DetectFn, DetectResult, DetectedTransfer } from '../contract';
import type { ConformanceBlock, ConformanceReorg, ExpectedTransfer } from './scenarios';
import type { ConformanceCheck } from './suite';

/** The plugin's detect, loaded the way a detect worker loads it. */
export const detectOf = (plugin: ChainPlugin): DetectFn => (require(plugin.detectModule) as { detect: DetectFn }).detect;

type Scene = Pick<ConformanceBlock, 'chain' | 'network' | 'watched' | 'tokens'>;

export function contextOf(plugin: ChainPlugin, s: Scene): DetectContext {
  const keys = new Set(s.watched.map((a) => plugin.matchKey(s.chain, s.network, a)));
  return {
    chain: s.chain,
    network: s.network,
    // The native asset as the plugin under test declares it.
    native: chainTableOf(plugin.chains).nativeAsset(s.chain, s.network),
    tokens: new Map((s.tokens ?? []).map((tk) => [tk.matchKey, tk])),
    watched: { has: (k) => keys.has(k) },
  };
}

/** The transfer as the scenario states it: only the fields the scenario names. */
function comparable(plugin: ChainPlugin, s: Scene, t: DetectedTransfer, e: ExpectedTransfer | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {
    txHash: t.txHash,
    eventIndex: t.eventIndex,
    to: t.toKey,
    amount: t.amount.toString(),
    assetKey: t.assetKey,
  };
  if (e?.from !== undefined)
    out.from = { from: t.from === undefined ? undefined : plugin.matchKey(s.chain, s.network, t.from), fromKey: t.fromKey };
  if (e?.eventType !== undefined) out.eventType = t.eventType;
  if (e?.logIndex !== undefined) out.logIndex = t.logIndex;
  if (e?.extra !== undefined) out.extra = Object.fromEntries(Object.keys(e.extra).map((k) => [k, t.extra?.[k]]));
  return out;
}

function expectedOf(plugin: ChainPlugin, s: Scene, e: ExpectedTransfer): Record<string, unknown> {
  const out: Record<string, unknown> = {
    txHash: e.txHash,
    eventIndex: e.eventIndex,
    to: plugin.matchKey(s.chain, s.network, e.to),
    amount: e.amount,
    assetKey: e.assetKey,
  };
  if (e.from !== undefined) {
    const key = plugin.matchKey(s.chain, s.network, e.from);
    out.from = { from: key, fromKey: key };
  }
  if (e.eventType !== undefined) out.eventType = e.eventType;
  if (e.logIndex !== undefined) out.logIndex = e.logIndex;
  if (e.extra !== undefined) out.extra = e.extra;
  return out;
}

/** Every transfer names what it is, and its recipient in both forms agrees (the store keys on `toKey`, events show `to`). */
function wellFormed(plugin: ChainPlugin, s: Scene, result: DetectResult): void {
  for (const t of result.transfers) {
    assert.ok(typeof t.eventType === 'string' && t.eventType.length > 0, `${t.txHash}:${t.eventIndex} has no eventType`);
    assert.equal(typeof t.amount, 'bigint', `${t.txHash}:${t.eventIndex}: amount is not a bigint`);
    assert.ok(t.amount > 0n, `${t.txHash}:${t.eventIndex}: credits ${t.amount}`);
    assert.equal(plugin.matchKey(s.chain, s.network, t.to), t.toKey, `${t.txHash}:${t.eventIndex}: to and toKey name different recipients`);
    if (t.from !== undefined)
      assert.ok(t.fromKey !== undefined, `${t.txHash}:${t.eventIndex} has from but no fromKey (internal movements go unseen)`);
  }
}

export function blockChecks(plugin: ChainPlugin, b: ConformanceBlock): ConformanceCheck[] {
  const detect = () => detectOf(plugin);
  if (b.unreadable !== undefined)
    return [
      {
        name: `${b.name}: detect refuses the block (${b.unreadable}): a failed read, never a block with fewer transfers`,
        run: () => {
          let got: DetectResult | undefined;
          try {
            got = detect()(b.raw, contextOf(plugin, b));
          } catch {
            return;
          }
          assert.fail(`detect returned the block with ${got.transfers.length} transfers instead of failing`);
        },
      },
    ];
  return [
    {
      name: `${b.name}: detect finds exactly the expected transfers, every stated field compared, amounts exact`,
      run: () => {
        const got = detect()(b.raw, contextOf(plugin, b));
        wellFormed(plugin, b, got);
        assert.deepEqual(
          got.transfers.map((t, i) =>
            comparable(plugin, b, t, b.expected.find((e) => e.txHash === t.txHash && e.eventIndex === t.eventIndex) ?? b.expected[i]),
          ),
          b.expected.map((e) => expectedOf(plugin, b, e)),
        );
      },
    },
    ...(b.header
      ? [
          {
            name: `${b.name}: detect reports the block's number, hash and parent exactly (the follower links blocks by them)`,
            run: () => {
              const { block } = detect()(b.raw, contextOf(plugin, b));
              const header = b.header as NonNullable<typeof b.header>;
              // The header time is optional (tip age, detection delay): compared where the fixture states it.
              const { number, hash, parentHash, timestamp } = block;
              const got = 'timestamp' in header ? { number, hash, parentHash, timestamp } : { number, hash, parentHash };
              assert.deepEqual(got, { ...header });
            },
          },
        ]
      : []),
    {
      name: `${b.name}: detect is pure (same bytes, same answer, input untouched), keys are unique, nothing is credited to nobody`,
      run: () => {
        const before = Buffer.from(b.raw);
        const first = detect()(b.raw, contextOf(plugin, b));
        assert.deepEqual(detect()(b.raw, contextOf(plugin, b)), first);
        assert.ok(Buffer.from(b.raw).equals(before), 'detect changed its input');
        const keys = first.transfers.map((x) => `${x.txKey ?? x.txHash}:${x.eventIndex}`);
        assert.equal(new Set(keys).size, keys.length, `duplicate transfer keys: ${keys.join(', ')}`);
        assert.deepEqual(detect()(b.raw, { ...contextOf(plugin, b), watched: { has: () => false } }).transfers, []);
      },
    },
  ];
}

const identity = (t: DetectedTransfer) => `${t.txKey ?? t.txHash}:${t.eventIndex}`;

export function reorgChecks(plugin: ChainPlugin, r: ConformanceReorg): ConformanceCheck[] {
  return [
    {
      name: `${r.name}: both branches link to the ancestor by number and parent hash, and part where they differ`,
      run: () => {
        const detect = detectOf(plugin);
        for (const branch of [r.orphaned, r.replacement]) {
          let previous = { number: r.ancestor.number, hash: r.ancestor.hash };
          for (const raw of branch) {
            const { block } = detect(raw, contextOf(plugin, r));
            assert.equal(block.number, previous.number + 1n, `block ${block.number} follows ${previous.number}`);
            assert.equal(block.parentHash, previous.hash, `block ${block.number}'s parent is not ${previous.hash}`);
            previous = block;
          }
        }
        const first = (raw: Uint8Array | undefined) => (raw ? detect(raw, contextOf(plugin, r)).block.hash : undefined);
        assert.notEqual(first(r.orphaned[0]), first(r.replacement[0]), 'the two branches start with the same block');
      },
    },
    {
      name: `${r.name}: what the replacement drops is retracted (never confirmed once detached); what it carries again keeps identity and content`,
      run: () => {
        const detect = detectOf(plugin);
        const all = (branch: Uint8Array[]) => branch.flatMap((raw) => detect(raw, contextOf(plugin, r)).transfers);
        const orphaned = all(r.orphaned);
        const again = new Map(all(r.replacement).map((t) => [identity(t), t]));
        const dropped = orphaned.filter((t) => !again.has(identity(t)));
        assert.ok(dropped.length > 0, 'the scenario retracts nothing: the orphaned branch must credit a transfer the replacement lacks');
        for (const t of orphaned.filter((x) => again.has(identity(x)))) {
          const n = again.get(identity(t)) as DetectedTransfer;
          assert.deepEqual(
            [n.toKey, n.assetKey, n.amount],
            [t.toKey, t.assetKey, t.amount],
            `${identity(t)} changed content across the reorg`,
          );
        }
        // The follower detaches the dropped ones (block null): no head or finalized height confirms them.
        const pending = dropped.map((_, i) => ({ id: i + 1, blockNumber: null }));
        for (const finality of ['confirmations', 'finalized'] as const) {
          const decided = plugin.confirm({
            pending,
            head: r.ancestor.number + 1000n,
            finalized: r.ancestor.number + 999n,
            threshold: 1,
            finality,
          });
          assert.deepEqual(
            decided.filter((d) => d.status === 'confirmed'),
            [],
            `a retracted transfer was confirmed under ${finality}`,
          );
        }
      },
    },
  ];
}
