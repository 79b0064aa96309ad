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
const fixture = (name: string) => JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'test', 'fixtures', 'polkadot', name), 'utf8'));
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

/**
 * Asset transfers on a real Asset Hub runtime (Rococo's, under chopsticks), built when the suite
 * runs: one block in which //Alice pays a watched address 2.5 USDT (asset 1984, allow-listed), 500
 * of asset 7 (a fake whose metadata calls it "USDT"), and 3 ROC in a batchAll that fails as a whole.
 * The plugin's reader frames the block; txids, event positions and the sender come from polkadot.js.
 */
function liveAssets(plugin: ConformanceSubject['plugin']): Pick<ConformanceSubject, 'blocks' | 'before' | 'after'> {
  const ROC = 10n ** 12n;
  const localnet = { chain: 'polkadot' as Chain, network: 'localnet' };
  const usdt = { key: 'polkadot:localnet:1984', symbol: 'USDT', decimals: 6, contractAddress: '1984', matchKey: '1984' };
  // `//Ferdie//walletd-conformance` (sr25519, SS58 42): an account nothing else funds.
  const deposit = '5CcN1tUfHwUNYmi2ByDBtiycqjzUEbwa2ZitoKeCnBjA8RXM';
  const allowListed: ConformanceBlock = {
    ...localnet,
    name: 'localnet (chopsticks, Asset Hub runtime): 2.5 USDT (asset 1984, allow-listed) credited; a fake "USDT" (asset 7) and a failed batchAll in the same block credit nothing',
    raw: new Uint8Array(),
    watched: [deposit],
    tokens: [usdt],
    expected: [],
    covers: ['look-alike-token'],
  };
  const unlisted: ConformanceBlock = {
    ...localnet,
    name: 'localnet (chopsticks, Asset Hub runtime): the same block with no asset allow-listed credits nothing',
    raw: new Uint8Array(),
    watched: [deposit],
    tokens: [],
    expected: [],
    covers: ['unlisted-token'],
  };
  let stop = async () => {};
  return {
    blocks: [allowListed, unlisted],
    before: async () => {
      const node = await startChopsticks({ endowed: [deposit] });
      stop = () => node.stop();
      const { api, alice } = node;
      await node.createAsset(1984, 1000n, 10n ** 12n);
      await node.createAsset(7, 1n, 10n ** 9n);
      await node.newBlock([await node.sign(api.tx.assets.setMetadata(7, 'Tether USD', 'USDT', 6))]);
      const txs = [
        await node.sign(api.tx.assets.transferKeepAlive(1984, deposit, 2_500_000n)),
        await node.sign(api.tx.assets.transferKeepAlive(7, deposit, 500n)),
        await node.sign(
          api.tx.utility.batchAll([
            api.tx.balances.transferKeepAlive(deposit, 3n * ROC),
            api.tx.balances.transferKeepAlive(deposit, 10n ** 30n),
          ]),
        ),
      ];
      const number = await node.newBlock(txs);
      const hash = await api.rpc.chain.getBlockHash(number);
      const body = await api.rpc.chain.getBlock(hash);
      const events = await api.query.system.events.at(hash);
      const index = body.block.extrinsics.findIndex((x) => x.toHex() === txs[0]);
      const eventIndex = events.findIndex(
        (r) =>
          r.phase.isApplyExtrinsic &&
          r.phase.asApplyExtrinsic.toNumber() === index &&
          r.event.section === 'assets' &&
          r.event.method === 'Transferred',
      );
      const reader = plugin.createReader('polkadot', 'localnet', { rpcUrl: node.url });
      const raw = (await reader.fetchBlock(number)) as Uint8Array;
      await reader.close?.();
      for (const b of [allowListed, unlisted]) b.raw = raw;
      allowListed.expected = [
        {
          txHash: api.createType('Extrinsic', txs[0]).hash.toHex(),
          eventIndex,
          to: deposit,
          amount: '2500000',
          assetKey: usdt.key,
          from: alice.address,
          eventType: 'assets_transferred',
        },
      ];
    },
    after: () => stop(),
  };
}

/** `live`: also the asset blocks built on chopsticks when the suite runs (polkadot.conformance.test.ts). */
export const polkadotSubject = (plugin: ConformanceSubject['plugin'], options: { live?: boolean } = {}): ConformanceSubject => {
  const live = options.live ? liveAssets(plugin) : undefined;
  const tokenReason =
    'the recorded mainnet block has no Assets events; allow-listed, unlisted and look-alike assets on a real Asset Hub runtime are the live scenario (polkadotSubject(plugin, { live: true }))';
  return {
    plugin,
    targets,
    blocks: [...POLKADOT_BLOCKS, ...(live?.blocks ?? [])],
    reorgs: [POLKADOT_REORG],
    ...(live ? { before: live.before, after: live.after } : {}),
    // What polkadot.js (`keyring.addFromUri('<mnemonic>//0')`) and `subkey inspect '<mnemonic>//0'` give.
    vectors: [
      { chain: 'polkadot', network: 'mainnet', mnemonic: MNEMONIC, index: 0, address: '12rsQBSiizNCu3dZDshfkVwB34XDwiqyVQJP6URvGo31YGdp' },
      { chain: 'polkadot', network: 'paseo', mnemonic: MNEMONIC, index: 1, address: '12ES7PTE9a3DKbs9mCsRA6Wge2DS1XK1xFgbTkp47nPV53yG' },
      { chain: 'polkadot', network: 'localnet', mnemonic: MNEMONIC, index: 0, address: '5DvaFrBesD6jTWd3GEefcM72BSXaFRHqQuZtwBSZii1VMnuP' },
    ],
    notCovered: {
      ...(live ? {} : { 'unlisted-token': tokenReason, 'look-alike-token': tokenReason }),
      'log-index': 'events are indexed in the block’s System.Events (eventIndex, compared); there is no separate log index',
      memo: 'Polkadot transfers carry no memo (each deposit has its own address)',
      'destination-tag': 'Polkadot addresses carry no tag',
      'own-change': 'account chain: no change outputs',
      'zero-amount':
        'no recorded or chopsticks block here transfers 0: detect skips a balances.Transfer or assets.Transferred of 0, and the store drops any amount ≤ 0',
    },
  };
};

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
