import type { Chain } from '@walletd/plugin-kit';
import type {
  ConformanceBlock,
  ConformanceNode,
  ConformanceReorg,
  ConformanceSubject,
  WithdrawalConformance,
} from '@walletd/plugin-kit/testing';
import { nativeAsset, startRecordedTronNode, tronFixture } from '@walletd/test-harness';
import { contractSentBlocks } from './tronContractSent';
import { type Json, bytes, tronBlock, word } from './tronRawBlock';

/**
 * The Tron family's scenario for the public kit (tron.conformance.test.ts, mutants.test.ts). Three
 * real mainnet records (test/fixtures/tron): block 30864544 as getblockbynum answered it, TRX
 * d8b11250 and USDT 0130dfde with their transaction infos. The blocks around the two transactions
 * are made up here (the source recorded no block), and so are the twins that differ from a real
 * record in one field, each named in its scenario: a reverted USDT call, a look-alike contract, a
 * memo, an amount above 2^53. TRX sent by a contract: tronContractSent.ts; the block envelope:
 * tronRawBlock.ts.
 */
const block = tronFixture('tron-mainnet-block-30864544.json');
const trx = tronFixture('tron-mainnet-trx-transfer-d8b11250.json');
const usdt = tronFixture('tron-mainnet-trc20-usdt-transfer-0130dfde.json');
const USDT_KEY = 'a614f803b6fd780986a42c78ec9c7f77e6ded13c';
/** USDT's contract with its last byte changed: the same Transfer event from another contract. */
const LOOK_ALIKE_KEY = 'a614f803b6fd780986a42c78ec9c7f77e6ded13d';

const trxPair: [Json, Json] = [trx.data.transaction, trx.data.transactionInfo];
const usdtPair: [Json, Json] = [usdt.data.transaction, usdt.data.transactionInfo];
const TRX_HEADER = { number: BigInt(trx.expected.blockNumber), hash: word('1'), parentHash: word('2') };
const USDT_HEADER = { number: BigInt(usdt.expected.blockNumber), hash: word('3'), parentHash: word('4') };
const reverted: [Json, Json] = [
  { ...usdt.data.transaction, ret: [{ contractRet: 'REVERT', fee: usdt.data.transaction.ret[0].fee }] },
  // Its Transfer log left in: the outcome, not the absence of a log, is what rules a reverted call out.
  { ...usdt.data.transactionInfo, receipt: { ...usdt.data.transactionInfo.receipt, result: 'REVERT' } },
];
const lookAlike: [Json, Json] = [
  usdt.data.transaction,
  { ...usdt.data.transactionInfo, log: usdt.data.transactionInfo.log.map((l: Json) => ({ ...l, address: LOOK_ALIKE_KEY })) },
];
/** The recorded USDT Transfer log with its value set to 0 (made up from the record): address poisoning. */
const zeroUsdt: [Json, Json] = [
  usdt.data.transaction,
  { ...usdt.data.transactionInfo, log: usdt.data.transactionInfo.log.map((l: Json) => ({ ...l, data: word('0') })) },
];
const MEMO = 'deposit 4711';
const withMemo: [Json, Json] = [
  { ...trx.data.transaction, raw_data: { ...trx.data.transaction.raw_data, data: Buffer.from(MEMO).toString('hex') } },
  trx.data.transactionInfo,
];
const ABOVE_2_53 = '9007199254740993';
export const TRON_NETWORKS = ['mainnet', 'nile', 'shasta', 'devnet'];
const usdtOn = (network: string) => ({
  key: `tron:${network}:${USDT_KEY}`,
  symbol: 'USDT',
  decimals: 6,
  contractAddress: usdt.expected.tokenContract,
  matchKey: USDT_KEY,
});

function blocksOn(network: string): ConformanceBlock[] {
  const scene = { chain: 'tron' as Chain, network };
  const trxCredit = {
    txHash: trx.expected.txID,
    eventIndex: 0,
    to: trx.expected.to,
    amount: trx.expected.amountSun,
    assetKey: `tron:${network}:trx`,
    from: trx.expected.from,
    eventType: 'native_transfer',
  };
  const usdtCredit = {
    txHash: usdt.expected.txID,
    eventIndex: 1,
    to: usdt.expected.to,
    amount: usdt.expected.amountBaseUnits,
    assetKey: `tron:${network}:${USDT_KEY}`,
    from: usdt.expected.from,
    eventType: 'trc20_transfer',
  };
  const first = block.data.transactions[0];
  return [
    {
      ...scene,
      name: `tron/${network}: block 30864544 as recorded (getblockbynum), 50 TRX; its number, hash and parent`,
      raw: bytes(block.data, [
        {
          id: first.txID,
          blockNumber: 30864544,
          blockTimeStamp: block.data.block_header.raw_data.timestamp,
          contractResult: [''],
          receipt: { net_usage: 267 },
        },
      ]),
      header: { number: BigInt(block.expected.number), hash: block.expected.blockID, parentHash: block.expected.parentHash },
      watched: [block.expected.transfers[0].to],
      expected: [
        {
          txHash: block.expected.transfers[0].txID,
          eventIndex: 0,
          to: block.expected.transfers[0].to,
          amount: '50000000',
          assetKey: `tron:${network}:trx`,
          from: block.expected.transfers[0].from,
        },
      ],
    },
    {
      ...scene,
      name: `tron/${network}: TRX d8b11250 with its recorded info, its sender compared (the store drops own-wallet senders as internal movements)`,
      raw: tronBlock(TRX_HEADER, [trxPair]),
      watched: [trx.expected.to],
      expected: [trxCredit],
      covers: ['internal-movement'],
    },
    {
      ...scene,
      name: `tron/${network}: allow-listed USDT 0130dfde with its recorded Transfer log, sender compared`,
      raw: tronBlock(USDT_HEADER, [usdtPair]),
      watched: [usdt.expected.to],
      tokens: [usdtOn(network)],
      expected: [usdtCredit],
    },
    {
      ...scene,
      name: `tron/${network}: USDT 0130dfde reverted (contractRet and receipt REVERT, made up from the record) credits nothing`,
      raw: tronBlock(USDT_HEADER, [reverted]),
      watched: [usdt.expected.to],
      tokens: [usdtOn(network)],
      expected: [],
      covers: ['failed-transaction'],
    },
    {
      ...scene,
      name: `tron/${network}: the same USDT transfer with USDT not on the allow-list credits nothing`,
      raw: tronBlock(USDT_HEADER, [usdtPair]),
      watched: [usdt.expected.to],
      tokens: [],
      expected: [],
      covers: ['unlisted-token'],
    },
    {
      ...scene,
      name: `tron/${network}: a look-alike contract (one byte off USDT) emitting the same Transfer credits nothing`,
      raw: tronBlock(USDT_HEADER, [lookAlike]),
      watched: [usdt.expected.to],
      tokens: [usdtOn(network)],
      expected: [],
      covers: ['look-alike-token'],
    },
    {
      ...scene,
      name: `tron/${network}: USDT 0130dfde with its Transfer log for 0 (made up from the record: address poisoning) credits nothing`,
      raw: tronBlock(USDT_HEADER, [zeroUsdt]),
      watched: [usdt.expected.to],
      tokens: [usdtOn(network)],
      expected: [],
      covers: ['zero-amount'],
    },
    {
      ...scene,
      name: `tron/${network}: TRX d8b11250 with a memo in raw_data.data (made up here) carries it as extra.memo`,
      raw: tronBlock(TRX_HEADER, [withMemo]),
      watched: [trx.expected.to],
      expected: [{ ...trxCredit, extra: { memo: MEMO } }],
      covers: ['memo'],
    },
    {
      ...scene,
      name: `tron/${network}: TRX d8b11250 with its amount set to 2^53 + 1 sun (a JSON number no double holds) is exact`,
      raw: tronBlock(TRX_HEADER, [trxPair], [`"amount":${trx.expected.amountSun}`, `"amount":${ABOVE_2_53}`]),
      watched: [trx.expected.to],
      expected: [{ ...trxCredit, amount: ABOVE_2_53 }],
    },
    ...contractSentBlocks(scene),
  ];
}

/** Block N (TRX and USDT) replaced by N' (empty) and N'+1 (the USDT transfer again). */
function reorgOn(network: string): ConformanceReorg {
  const ancestor = { number: TRX_HEADER.number - 1n, hash: word('a'), parentHash: word('9') };
  const n = ancestor.number + 1n;
  return {
    name: `tron/${network}: a reorg drops the TRX transfer and includes the USDT transfer one block later`,
    chain: 'tron',
    network,
    watched: [trx.expected.to, usdt.expected.to],
    tokens: [usdtOn(network)],
    ancestor,
    orphaned: [tronBlock({ number: n, hash: word('b'), parentHash: ancestor.hash }, [trxPair, usdtPair])],
    replacement: [
      tronBlock({ number: n, hash: word('c'), parentHash: ancestor.hash }, []),
      tronBlock({ number: n + 1n, hash: word('d'), parentHash: word('c') }, [usdtPair]),
    ],
  };
}

export const tronSubject = (plugin: ConformanceSubject['plugin']): ConformanceSubject => ({
  plugin,
  targets: TRON_NETWORKS.map((network) => ({ chain: 'tron' as Chain, network })),
  blocks: TRON_NETWORKS.flatMap(blocksOn),
  reorgs: TRON_NETWORKS.map(reorgOn),
  // TronLink's and tronweb's first address of the BIP-39 test mnemonic.
  vectors: TRON_NETWORKS.map((network) => ({
    chain: 'tron' as Chain,
    network,
    mnemonic: 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
    index: 0,
    address: 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH',
  })),
  notCovered: {
    'log-index':
      'a Tron transaction info numbers its logs within the transaction only (no block-wide log index): eventIndex is 1 + that position, compared in every token scenario',
    'destination-tag': 'Tron addresses carry no tag (exchanges tell deposits apart by address; the memo is compared)',
    'own-change': 'account chain: no change outputs',
  },
});

/**
 * Withdrawals against the recorded-response server (it checks signatures, TaPoS and expiry as a
 * node would; it executes nothing: test/src/harness/recordedTronNode.ts). Blocks are made only by
 * `mine()`, so a broadcast transaction stays in the pool until settled.
 */
export const tronWithdrawals = (network: string): WithdrawalConformance => ({
  notCovered: {
    failed_on_chain:
      'a TRX TransferContract cannot be included and fail: the node refuses it at broadcast (balance, account); a failed TRC-20 call is verified in plugins/tron/src/verbs/withdrawals.test.ts',
  },
  chain: 'tron',
  network,
  asset: nativeAsset('tron', network),
  recipients: ['TJ4eV1hnVAiFmeArBsuL6GkgTGVnWBe7eV', 'TTmaAAbFPtACn1amP3FBkmmUygFh8udAvA'],
  amount: 1_000_001n,
  token: { key: `tron:${network}:usdt`, symbol: 'USDT', decimals: 6, contractAddress: usdt.expected.tokenContract },
  start: async (): Promise<ConformanceNode> => {
    const node = await startRecordedTronNode({ head: 20_000 });
    return {
      rpcUrl: node.url,
      fund: async (address) => node.setBalance(address, 100_000_000n),
      settle: async () => {
        node.mine();
      },
      stop: () => node.close(),
      hold: async () => {},
      release: async () => {
        node.mine();
      },
      drop: async (txHash) => node.dropPending(txHash),
      // Gone from the pool, and the solidified block's time past the transaction's expiration (an hour after its reference block).
      expire: async (txHash) => {
        node.dropPending(txHash);
        node.advanceTime(2 * 60 * 60_000);
        node.mine(node.head() - node.solid() + 1);
      },
    };
  },
});
