import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AssetRef, Chain } from '@walletd/plugin-kit';
import type {
  ConformanceBlock,
  ConformanceNode,
  ConformanceReorg,
  ConformanceSubject,
  WithdrawalConformance,
} from '@walletd/plugin-kit/testing';
import { startAnvil, nativeAsset } from '@walletd/test-harness';
import { traceBlocksOn } from './evmTraceBlocks';

/**
 * The EVM family's scenario for the public kit, shared by evm.conformance.test.ts and the mutants
 * test (test/src/conformance/mutants.test.ts). Two real mainnet transactions (test/fixtures/ethereum);
 * the blocks around them are made up here: the fixtures record the transactions' block number and
 * hash, not the parent hash, nor a reverted twin, a look-alike token or a fork.
 */
const fixture = (name: string) => JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'test', 'fixtures', 'ethereum', name), 'utf8'));
const eth = fixture('eth-mainnet-eip1559-eth-transfer-8ff41d0b.json');
const swap = fixture('eth-mainnet-erc20-transfer-receipt-cd718a69.json');

type Json = Record<string, any>;
const word = (n: string) => `0x${n.repeat(64).slice(0, 64)}`;
const nativeTx: Json = eth.data.rpcTransaction;
const nativeReceipt: Json = { transactionHash: eth.expected.hash, status: '0x1', logs: [] };
const tokenTx: Json = swap.data.eth_getTransactionByHash.result;
const tokenReceipt: Json = swap.data.eth_getTransactionReceipt.result;
const usdt = swap.expected.usdtCredit;
const big = swap.expected.erc20Transfers[1];
const positionOf = (logIndex: number) => tokenReceipt.logs.findIndex((l: { logIndex: string }) => Number(l.logIndex) === logIndex);

/** A block as the EVM reader hands it to detect: `{block, receipts}`, receipts marked as this block's. */
export function evmBlock(header: { number: bigint; hash: string; parentHash: string }, txs: [Json, Json][]): Uint8Array {
  return new TextEncoder().encode(
    JSON.stringify({
      block: {
        number: `0x${header.number.toString(16)}`,
        hash: header.hash,
        parentHash: header.parentHash,
        transactions: txs.map(([tx]) => tx),
      },
      receipts: txs.map(([, r]) => ({ ...r, blockHash: header.hash })),
    }),
  );
}

const NATIVE_HEADER = { number: BigInt(eth.expected.blockNumber), hash: eth.expected.blockHash, parentHash: word('1') };
const TOKEN_HEADER = { number: BigInt(swap.expected.blockNumber), hash: swap.expected.blockHash, parentHash: word('2') };
/** A contract one character off USDT's, emitting the same Transfer event. */
const LOOK_ALIKE = '0xdac17f958d2ee523a2206206994597c13d831ec8';

export const EVM_TARGETS: { chain: Chain; network: string }[] = [
  { chain: 'ethereum', network: 'mainnet' },
  { chain: 'bsc', network: 'mainnet' },
  { chain: 'polygon', network: 'mainnet' },
  { chain: 'arbitrum', network: 'mainnet' },
];

function blocksOn(chain: Chain, network: string): ConformanceBlock[] {
  const native = nativeAsset(chain, network).key;
  const usdtToken = {
    key: `${chain}:${network}:usdt`,
    symbol: 'USDT',
    decimals: 6,
    contractAddress: usdt.token,
    matchKey: usdt.token.toLowerCase(),
  };
  const bigToken = {
    key: `${chain}:${network}:tkn`,
    symbol: 'TKN',
    decimals: 18,
    contractAddress: big.token,
    matchKey: big.token.toLowerCase(),
  };
  const scene = { chain, network };
  const nativeCredit = {
    txHash: eth.expected.hash,
    eventIndex: 0,
    to: eth.expected.to,
    amount: eth.expected.valueWei,
    assetKey: native,
    from: eth.expected.from,
    eventType: 'native_transfer',
  };
  const usdtCredit = {
    txHash: swap.expected.hash,
    eventIndex: positionOf(usdt.logIndex) + 1,
    to: usdt.to,
    amount: usdt.valueBaseUnits,
    assetKey: usdtToken.key,
    from: usdt.from,
    eventType: 'erc20_transfer',
    logIndex: usdt.logIndex,
  };
  const lookAlike = {
    ...tokenReceipt,
    logs: tokenReceipt.logs.map((l: Json, i: number) => (i === positionOf(usdt.logIndex) ? { ...l, address: LOOK_ALIKE } : l)),
  };
  // The real USDT log with its value rewritten to 0: transferFrom(anyone, deposit, 0) needs no allowance.
  const zeroUsdt = {
    ...tokenReceipt,
    logs: tokenReceipt.logs.map((l: Json, i: number) => (i === positionOf(usdt.logIndex) ? { ...l, data: word('0') } : l)),
  };
  return [
    {
      ...scene,
      name: `${chain}: native transfer (real tx 8ff41d0b), its sender compared (the store drops own-wallet senders as internal movements)`,
      raw: evmBlock(NATIVE_HEADER, [[nativeTx, nativeReceipt]]),
      header: NATIVE_HEADER,
      watched: [eth.expected.to],
      expected: [nativeCredit],
      covers: ['internal-movement'],
    },
    {
      ...scene,
      name: `${chain}: the same transaction reverted (status 0x0) credits nothing`,
      raw: evmBlock(NATIVE_HEADER, [[nativeTx, { ...nativeReceipt, status: '0x0' }]]),
      watched: [eth.expected.to],
      expected: [],
      covers: ['failed-transaction'],
    },
    {
      ...scene,
      name: `${chain}: allow-listed token transfer (real tx cd718a69), logIndex and sender compared`,
      raw: evmBlock(TOKEN_HEADER, [[tokenTx, tokenReceipt]]),
      header: TOKEN_HEADER,
      watched: [usdt.to],
      tokens: [usdtToken],
      expected: [usdtCredit],
    },
    {
      ...scene,
      name: `${chain}: a token amount above 2^53 (50,000 × 10^18 base units, real tx cd718a69) is exact`,
      raw: evmBlock(TOKEN_HEADER, [[tokenTx, tokenReceipt]]),
      watched: [big.to],
      tokens: [bigToken],
      expected: [
        {
          txHash: swap.expected.hash,
          eventIndex: positionOf(big.logIndex) + 1,
          to: big.to,
          amount: big.valueBaseUnits,
          assetKey: bigToken.key,
          logIndex: big.logIndex,
        },
      ],
    },
    {
      ...scene,
      name: `${chain}: the same USDT transfer with USDT not on the allow-list credits nothing`,
      raw: evmBlock(TOKEN_HEADER, [[tokenTx, tokenReceipt]]),
      watched: [usdt.to],
      tokens: [],
      expected: [],
      covers: ['unlisted-token'],
    },
    {
      ...scene,
      name: `${chain}: a look-alike contract (one character off USDT) emitting the same Transfer credits nothing`,
      raw: evmBlock(TOKEN_HEADER, [[tokenTx, lookAlike]]),
      watched: [usdt.to],
      tokens: [usdtToken],
      expected: [],
      covers: ['look-alike-token'],
    },
    {
      ...scene,
      name: `${chain}: the same USDT Transfer log for 0 (address poisoning) credits nothing`,
      raw: evmBlock(TOKEN_HEADER, [[tokenTx, zeroUsdt]]),
      watched: [usdt.to],
      tokens: [usdtToken],
      expected: [],
      covers: ['zero-amount'],
    },
    ...traceBlocksOn(chain, network, native),
  ];
}

/** Block N (both transactions) replaced by N' (neither) and N'+1 (the token transfer again). */
function reorgOn(chain: Chain, network: string): ConformanceReorg {
  const ancestor = { number: NATIVE_HEADER.number - 1n, hash: word('a'), parentHash: word('9') };
  const n = ancestor.number + 1n;
  return {
    name: `${chain}: a reorg drops the native transfer and mines the token transfer one block later`,
    chain,
    network,
    watched: [eth.expected.to, usdt.to],
    tokens: [
      { key: `${chain}:${network}:usdt`, symbol: 'USDT', decimals: 6, contractAddress: usdt.token, matchKey: usdt.token.toLowerCase() },
    ],
    ancestor,
    orphaned: [
      evmBlock({ number: n, hash: word('b'), parentHash: ancestor.hash }, [
        [nativeTx, nativeReceipt],
        [tokenTx, tokenReceipt],
      ]),
    ],
    replacement: [
      evmBlock({ number: n, hash: word('c'), parentHash: ancestor.hash }, []),
      evmBlock({ number: n + 1n, hash: word('d'), parentHash: word('c') }, [[tokenTx, tokenReceipt]]),
    ],
  };
}

export const evmSubject = (plugin: ConformanceSubject['plugin']): ConformanceSubject => ({
  plugin,
  targets: EVM_TARGETS,
  blocks: EVM_TARGETS.flatMap(({ chain, network }) => blocksOn(chain, network)),
  reorgs: EVM_TARGETS.map(({ chain, network }) => reorgOn(chain, network)),
  vectors: EVM_TARGETS.map(({ chain, network }) => ({
    chain,
    network,
    mnemonic: 'test test test test test test test test test test test junk',
    index: 0,
    address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  })),
  notCovered: {
    memo: 'EVM transfers carry no memo',
    'destination-tag': 'EVM addresses carry no tag',
    'own-change': 'account chain: no change outputs',
  },
});

const USDT_DEVNET: AssetRef = {
  key: 'ethereum:devnet:usdt',
  symbol: 'USDT',
  decimals: 6,
  contractAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
};
/** A recipient whose code reverts once armed: a payment to it is mined and fails. */
const REVERTER = '0x00000000000000000000000000000000000f0a11';

/** Withdrawals on a real anvil (automine: a broadcast transaction is in a block at once, unless held). */
export const evmWithdrawals: WithdrawalConformance = {
  chain: 'ethereum',
  network: 'devnet',
  asset: nativeAsset('ethereum', 'devnet'),
  recipients: ['0x000000000000000000000000000000000000dEaD', '0x000000000000000000000000000000000000bEEF'],
  amount: 1_000_000_000_000_001n,
  token: USDT_DEVNET,
  notCovered: { expired: 'EVM transactions carry no expiry (a nonce is valid until used)' },
  start: async (): Promise<ConformanceNode> => {
    const anvil = await startAnvil();
    return {
      rpcUrl: anvil.url,
      fund: async (address) => {
        await anvil.receipt(await anvil.send(address, 10n ** 19n));
      },
      settle: async (txHash) => {
        await anvil.receipt(txHash);
      },
      stop: () => anvil.stop(),
      // PUSH1 0 PUSH1 0 REVERT: a plain transfer's 21,000 gas runs out at once, the fee is charged.
      failOnChain: { recipient: REVERTER, arm: async () => void (await anvil.rpc('anvil_setCode', [REVERTER, '0x60006000fd'])) },
      hold: async () => void (await anvil.rpc('evm_setAutomine', [false])),
      release: async () => {
        await anvil.rpc('evm_setAutomine', [true]);
        await anvil.mine(1);
      },
      drop: async (txHash) => void (await anvil.rpc('anvil_dropTransaction', [txHash])),
    };
  },
};
