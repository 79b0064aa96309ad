import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Metadata, TypeRegistry } from '@polkadot/types';
import type { EventRecord } from '@polkadot/types/interfaces';
import staticPolkadot from '@polkadot/types-support/metadata/static-polkadot';
import { compactToU8a, hexToU8a, u8aConcat, u8aToHex } from '@polkadot/util';
import type { Chain } from '@walletd/plugin-kit';
import type { ConformanceBlock, ConformanceReorg, ConformanceSubject, WithdrawalConformance } from '@walletd/plugin-kit/testing';
import { encodeFrame } from '@walletd/plugin-polkadot';
import { nativeAsset, startChopsticks } from '@walletd/test-harness';

/**
 * The Polkadot family's scenario for the public kit (polkadot.conformance.test.ts, mutants.test.ts).
 * Real mainnet block 18468942 (test/fixtures/polkadot: its header, 4 extrinsics and the 58 events
 * of its System.Events) framed as the reader frames blocks. Its runtime (1000001) ships no
 * metadata in the fixture; the Polkadot metadata in npm (@polkadot/types-support, spec 1002005)
 * encodes all of this block's events identically (plugins/polkadot/src/detect.test.ts checks all
 * 58). Twins made up here change one event each, named in their scenario; the fork's blocks are
 * made up around the real content.
 */
const fixture = (name: string) => JSON.parse(readFileSync(join(__dirname, '..', '..', 'fixtures', 'polkadot', name), 'utf8'));
const recorded = fixture('dot-mainnet-block-18468942.json');
const block = recorded.data;
const facts = recorded.expected;
const HASH = facts.blockHash as string;
const metadata = hexToU8a(staticPolkadot);
const registry = new TypeRegistry();
registry.setMetadata(new Metadata(registry, staticPolkadot));
const records = registry.createType('Vec<EventRecord>', hexToU8a(block.systemEventsHex)) as unknown as EventRecord[];

interface Header {
  number: bigint;
  hash: string;
  parentHash: string;
}
const frame = (h: Header, events: string | null) =>
  encodeFrame(
    {
      number: h.number.toString(),
      hash: h.hash,
      parentHash: h.parentHash,
      specName: 'polkadot',
      specVersion: 1002005,
      metadataKey: 'polkadot/1002005/static',
      extrinsics: block.block.extrinsics,
      events,
    },
    metadata,
  );
/** The block's events with `rewrite` applied to one record's bytes. */
function eventsWith(pick: (r: EventRecord) => boolean, rewrite: (r: EventRecord) => Uint8Array): string {
  return u8aToHex(u8aConcat(compactToU8a(records.length), ...records.map((r) => (pick(r) ? rewrite(r) : r.toU8a()))));
}
const ofExtrinsic = (r: EventRecord, i: number) => r.phase.isApplyExtrinsic && r.phase.asApplyExtrinsic.toNumber() === i;

/** Extrinsic 2's ExtrinsicSuccess as ExtrinsicFailed(BadOrigin) with the same DispatchInfo (its Transfer event left in place). */
const failedTwo = eventsWith(
  (r) => ofExtrinsic(r, 2) && r.event.section === 'system' && r.event.method === 'ExtrinsicSuccess',
  (r) => {
    // The event's index is [pallet, variant]: System's variant 1 is ExtrinsicFailed(DispatchError, DispatchInfo); DispatchError 2 is BadOrigin.
    const [pallet] = r.event.index.toU8a();
    return u8aConcat(r.phase.toU8a(), new Uint8Array([pallet as number, 1, 2]), r.event.data.toU8a(), r.topics.toU8a());
  },
);
const ABOVE_2_53 = 2n ** 53n + 1n;
/** Extrinsic 3's Balances.Transfer with its amount set to 2^53 + 1 planck (u128). */
const bigThree = eventsWith(
  (r) => ofExtrinsic(r, 3) && r.event.section === 'balances' && r.event.method === 'Transfer',
  (r) =>
    u8aConcat(
      r.phase.toU8a(),
      r.event.index.toU8a(),
      r.event.data[0]?.toU8a() as Uint8Array,
      r.event.data[1]?.toU8a() as Uint8Array,
      registry.createType('u128', ABOVE_2_53).toU8a(),
      r.topics.toU8a(),
    ),
);

const HEADER = { number: BigInt(facts.number), hash: HASH, parentHash: facts.parentHash as string };
const [t2, t3] = facts.balancesTransfers as { extrinsicIndex: number; from: string; to: string; amountPlanck: string }[];
const TX2 = '0x4f151b3e1443437bb55460b602fcea37f0f78196e690d7e4522d0cd81facd9d3';
const TX3 = '0x6172c09512af2ce39298b449fa4aa37317016447bcb2348825553b64c3c17a92';
const credit2 = {
  txHash: TX2,
  eventIndex: 45,
  to: t2?.to as string,
  amount: t2?.amountPlanck as string,
  assetKey: 'polkadot:mainnet:dot',
  from: t2?.from,
  eventType: 'balances_transfer',
};
const credit3 = {
  txHash: TX3,
  eventIndex: 52,
  to: t3?.to as string,
  amount: t3?.amountPlanck as string,
  assetKey: 'polkadot:mainnet:dot',
  from: t3?.from,
  eventType: 'balances_transfer',
};
const watched = [credit2.to, credit3.to];
const scene = { chain: 'polkadot' as Chain, network: 'mainnet' };

export const POLKADOT_BLOCKS: ConformanceBlock[] = [
  {
    ...scene,
    name: 'mainnet block 18468942: two balances.transferKeepAlive, senders compared (the store drops own-wallet senders); the block’s number, hash and parent',
    raw: frame(HEADER, block.systemEventsHex),
    header: HEADER,
    watched,
    expected: [credit2, credit3],
    covers: ['internal-movement'],
  },
  {
    ...scene,
    name: 'mainnet block 18468942 with extrinsic 2 failed (its ExtrinsicSuccess made ExtrinsicFailed, made up; its Transfer event left in) credits only extrinsic 3',
    raw: frame(HEADER, failedTwo),
    watched,
    expected: [credit3],
    covers: ['failed-transaction'],
  },
  {
    ...scene,
    name: 'mainnet block 18468942 with extrinsic 3’s Transfer amount set to 2^53 + 1 planck (made up) is exact',
    raw: frame(HEADER, bigThree),
    watched: [credit3.to],
    expected: [{ ...credit3, amount: ABOVE_2_53.toString() }],
  },
];

/** N (both transfers) replaced by N' (no events) and N'+1 (the block's content again, extrinsic 2 failed). */
export const POLKADOT_REORG: ConformanceReorg = (() => {
  const word = (c: string) => `0x${c.repeat(64)}`;
  const ancestor = { number: HEADER.number - 1n, hash: HEADER.parentHash, parentHash: word('9') };
  const n = HEADER.number;
  return {
    name: 'mainnet: a fork drops block 18468942 for an empty one and carries its content one block later',
    ...scene,
    watched,
    ancestor,
    orphaned: [frame(HEADER, block.systemEventsHex)],
    replacement: [
      frame({ number: n, hash: word('c'), parentHash: ancestor.hash }, null),
      frame({ number: n + 1n, hash: word('d'), parentHash: word('c') }, failedTwo),
    ],
  };
})();

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const targets: { chain: Chain; network: string }[] = ['mainnet', 'paseo', 'localnet'].map((network) => ({ chain: 'polkadot', network }));

export const polkadotSubject = (plugin: ConformanceSubject['plugin']): ConformanceSubject => ({
  plugin,
  targets,
  blocks: POLKADOT_BLOCKS,
  reorgs: [POLKADOT_REORG],
  // What polkadot.js (`keyring.addFromUri('<mnemonic>//0')`) and `subkey inspect '<mnemonic>//0'` give.
  vectors: [
    { chain: 'polkadot', network: 'mainnet', mnemonic: MNEMONIC, index: 0, address: '12rsQBSiizNCu3dZDshfkVwB34XDwiqyVQJP6URvGo31YGdp' },
    { chain: 'polkadot', network: 'paseo', mnemonic: MNEMONIC, index: 1, address: '12ES7PTE9a3DKbs9mCsRA6Wge2DS1XK1xFgbTkp47nPV53yG' },
    { chain: 'polkadot', network: 'localnet', mnemonic: MNEMONIC, index: 0, address: '5DvaFrBesD6jTWd3GEefcM72BSXaFRHqQuZtwBSZii1VMnuP' },
  ],
  notCovered: {
    'unlisted-token':
      'the recorded mainnet block has no Assets events; allow-listed and unlisted assets on a real Asset Hub runtime (chopsticks) are checked in test/src/integration/polkadotDeposits.test.ts',
    'look-alike-token':
      'an asset is named by its numeric id, not a contract one can imitate: an Assets.Transferred of another id is an unlisted asset (see unlisted-token)',
    'log-index': 'events are indexed in the block’s System.Events (eventIndex, compared); there is no separate log index',
    memo: 'Polkadot transfers carry no memo (each deposit has its own address)',
    'destination-tag': 'Polkadot addresses carry no tag',
    'own-change': 'account chain: no change outputs',
  },
});

/** Withdrawals executed by the Rococo Asset Hub runtime under chopsticks (a block is built only on settle). */
export const polkadotWithdrawals: WithdrawalConformance = {
  notCovered: {
    dropped: 'chopsticks has no RPC that evicts one extrinsic from its pool',
    expired:
      'chopsticks puts every pooled extrinsic in its next block and evicts none, so a broadcast one cannot outlive its era (64 blocks) here; a signed, unsent one past its era reads rejected/expired in test/src/integration/polkadotWithdrawals.test.ts',
    failed_on_chain:
      'a native transfer fails on chain only when its source cannot pay it, and changing the source’s balance between build and broadcast would break the kit’s fee check (before − after = fee); failed extrinsics are detected above (ExtrinsicFailed)',
  },
  token: { key: 'polkadot:localnet:1984', symbol: 'USDT', decimals: 6, contractAddress: '1984' },
  chain: 'polkadot',
  network: 'localnet',
  asset: nativeAsset('polkadot', 'localnet'),
  // //Bob and //Charlie (funded at start, so any amount above 0 may be paid to them).
  recipients: ['5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty', '5FLSigC9HGRKVhB9FiEo4Y3koPsNmBmLJbpXg2mp1hXcS59Y'],
  amount: 1_000_000_000_001n,
  start: async () => {
    const node = await startChopsticks({
      endowed: ['5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty', '5FLSigC9HGRKVhB9FiEo4Y3koPsNmBmLJbpXg2mp1hXcS59Y'],
    });
    return {
      rpcUrl: node.url,
      fund: (address) => node.fund(address, 100n * 10n ** 12n),
      settle: async () => {
        await node.newBlock();
      },
      stop: () => node.stop(),
      hold: async () => {},
      release: async () => {
        await node.newBlock();
      },
    };
  },
};
