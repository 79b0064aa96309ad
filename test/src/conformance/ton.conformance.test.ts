import { Address } from '@ton/core';
import type { Chain } from '@walletd/core';
import { createTonPlugin } from '@walletd/plugin-ton';
import { TonSandboxNode, tonFixture, nativeAsset } from '@walletd/test-harness';
import { type ConformanceBlock, describePluginConformance } from '@walletd/plugin-kit/testing';
import { describeWithdrawalConformance } from '@walletd/plugin-kit/testing';
import { depositGaps, withdrawalGaps } from './notCovered';

const history = tonFixture('ton-mainnet-toncenter-v2-gettransactions-jetton-wallet-owner.json').data.result as {
  data: string;
  transaction_id: { hash: string };
  address: { account_address: string };
}[];
const owner = Address.parse('EQAWnJNnwByLThRxli2zLpnj5Ec6r7R-GmpkOkF3pnWPFuF-');
const bytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
const incoming = history.find((i) => i.transaction_id.hash === 'tVP59sxeqaaA7S21TNy+g6o/qynUd8b7SPFq9+4Dj08=');

// The same real mainnet transactions replayed on every TON network: the rules are the network's, the bytes are real.
const networks = ['mainnet', 'testnet', 'localnet'];
const blocks: ConformanceBlock[] = networks.map((network) => ({
  name: `ton/${network}: the recorded wallet history (0.3 TON and the excesses of another app's jetton transfer in; own sends and notifications of unregistered jetton wallets not credited)`,
  chain: 'ton' as Chain,
  network,
  raw: bytes({
    seqno: 38_000_000,
    hash: 'ab'.repeat(32),
    parentHash: 'cd'.repeat(32),
    transactions: history.map((i) => ({ account: owner.toRawString(), boc: i.data })),
  }),
  watched: [owner.toString({ bounceable: false, testOnly: network !== 'mainnet' })],
  expected: [
    {
      // An excesses whose query_id is not walletd's: TON arriving like any other.
      txHash: '8ce7e395b24e4483227947f340ddd7acab8febc7fadeb386cb162b079e22e33d',
      eventIndex: 0,
      to: owner.toString({ bounceable: false, urlSafe: true, testOnly: network !== 'mainnet' }),
      amount: '53567941',
      assetKey: `ton:${network}:ton`,
    },
    {
      txHash: Buffer.from(incoming?.transaction_id.hash ?? '', 'base64').toString('hex'),
      eventIndex: 0,
      to: owner.toString({ bounceable: false, urlSafe: true, testOnly: network !== 'mainnet' }),
      amount: '300000000',
      assetKey: `ton:${network}:ton`,
    },
  ],
}));

describePluginConformance({
  notCovered: depositGaps('ton', []),
  plugin: createTonPlugin(),
  targets: networks.map((network) => ({ chain: 'ton' as Chain, network })),
  blocks,
});

// Withdrawals executed by the real emulator behind the toncenter test adapter (devchains/src/tonSandbox.ts).
describeWithdrawalConformance(createTonPlugin(), {
  notCovered: withdrawalGaps('ton'),
  chain: 'ton',
  network: 'localnet',
  asset: nativeAsset('ton', 'localnet'),
  recipients: [
    new Address(0, Buffer.alloc(32, 1)).toString({ bounceable: false, testOnly: true }),
    new Address(0, Buffer.alloc(32, 2)).toString({ bounceable: false, testOnly: true }),
  ],
  amount: 1_000_001n,
  start: async () => {
    const node = await TonSandboxNode.start();
    const admin = await node.chain.treasury('admin');
    return {
      rpcUrl: node.url,
      fund: async (address) => {
        node.record(await admin.send({ to: Address.parse(address), value: 10_000_000_000n, bounce: false }));
        node.mine();
      },
      settle: async () => {
        node.mine();
      },
      stop: () => node.close(),
    };
  },
});
