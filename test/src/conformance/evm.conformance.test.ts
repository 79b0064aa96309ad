import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Chain, nativeAsset } from '@walletd/core';
import { createEvmPlugin } from '@walletd/plugin-evm';
import { startAnvil } from '@walletd/test-harness';
import { describePluginConformance, type ConformanceBlock } from './pluginConformance';
import { describeWithdrawalConformance } from './withdrawalConformance';

const fixture = (name: string) => JSON.parse(readFileSync(join(__dirname, '..', '..', 'fixtures', 'ethereum', name), 'utf8'));
const eth = fixture('eth-mainnet-eip1559-eth-transfer-8ff41d0b.json');
const swap = fixture('eth-mainnet-erc20-transfer-receipt-cd718a69.json');

function raw(tx: Record<string, unknown>, receipt: Record<string, unknown>): Uint8Array {
  return new TextEncoder().encode(
    JSON.stringify({
      block: { number: tx.blockNumber, hash: tx.blockHash, parentHash: `0x${'00'.repeat(32)}`, transactions: [tx] },
      receipts: [receipt],
    }),
  );
}

// The same real transactions replayed as if on each EVM chain: the rules are the chain's, the bytes are real.
const chains: { chain: Chain; network: string }[] = [
  { chain: 'ethereum', network: 'mainnet' },
  { chain: 'bsc', network: 'mainnet' },
  { chain: 'polygon', network: 'mainnet' },
  { chain: 'arbitrum', network: 'mainnet' },
];
const usdt = swap.expected.usdtCredit;
const receipt = swap.data.eth_getTransactionReceipt.result;
const position = receipt.logs.findIndex((l: { logIndex: string }) => Number(l.logIndex) === usdt.logIndex);

const blocks: ConformanceBlock[] = chains.flatMap(({ chain, network }) => [
  {
    name: `${chain}: native transfer (real tx 8ff41d0b)`,
    chain,
    network,
    raw: raw(eth.data.rpcTransaction, { transactionHash: eth.expected.hash, status: '0x1', logs: [] }),
    watched: [eth.expected.to],
    expected: [
      {
        txHash: eth.expected.hash,
        eventIndex: 0,
        to: eth.expected.to,
        amount: eth.expected.valueWei,
        assetKey: `${chain}:${network}:${chain === 'bsc' ? 'bnb' : chain === 'polygon' ? 'pol' : 'eth'}`,
      },
    ],
  },
  {
    name: `${chain}: allow-listed token transfer (real tx cd718a69)`,
    chain,
    network,
    raw: raw(swap.data.eth_getTransactionByHash.result, receipt),
    watched: [usdt.to],
    tokens: [
      { key: `${chain}:${network}:usdt`, symbol: 'USDT', decimals: 6, contractAddress: usdt.token, matchKey: usdt.token.toLowerCase() },
    ],
    expected: [
      {
        txHash: swap.expected.hash,
        eventIndex: position + 1,
        to: usdt.to,
        amount: usdt.valueBaseUnits,
        assetKey: `${chain}:${network}:usdt`,
      },
    ],
  },
]);

describePluginConformance({
  plugin: createEvmPlugin(),
  targets: chains,
  blocks,
  vectors: chains.map(({ chain, network }) => ({
    chain,
    network,
    mnemonic: 'test test test test test test test test test test test junk',
    index: 0,
    address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  })),
});

// Withdrawals on a real anvil (automine: a broadcast transaction is in a block at once).
describeWithdrawalConformance(createEvmPlugin(), {
  chain: 'ethereum',
  network: 'devnet',
  asset: nativeAsset('ethereum', 'devnet'),
  recipients: ['0x000000000000000000000000000000000000dEaD', '0x000000000000000000000000000000000000bEEF'],
  amount: 1_000_000_000_000_001n,
  start: async () => {
    const anvil = await startAnvil();
    return {
      rpcUrl: anvil.url,
      fund: async (address) => {
        await anvil.receipt(await anvil.send(address, 10n ** 18n));
      },
      settle: async (txHash) => {
        await anvil.receipt(txHash);
      },
      stop: () => anvil.stop(),
    };
  },
});
