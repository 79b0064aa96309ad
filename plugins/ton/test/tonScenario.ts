import { Address } from '@ton/core';
import type { Chain } from '@walletd/plugin-kit';
import type {
  ConformanceBlock,
  ConformanceNode,
  ConformanceReorg,
  ConformanceSubject,
  WithdrawalConformance,
} from '@walletd/plugin-kit/testing';
import { TonSandboxNode, nativeAsset, tonFixture } from '@walletd/test-harness';

/**
 * The TON family's scenario for the public kit (ton.conformance.test.ts, mutants.test.ts). Real
 * transactions, each as its BOC: a mainnet wallet's recorded history (toncenter v2: incoming TON,
 * its own sends, USDT notifications from its jetton wallet and another contract's), and three
 * executed by @ton/sandbox (test/scripts/record-ton-sandbox.js): a bounceable 1 TON to an account
 * with no code (bounced back), 1 TON with the comment "invoice 77", and 10^16 nanoton. The block
 * envelope is the reader's frame, made up here (seqno, hashes).
 */
const history = tonFixture('ton-mainnet-toncenter-v2-gettransactions-jetton-wallet-owner.json').data.result as {
  data: string;
  transaction_id: { hash: string };
  address: { account_address: string };
}[];
const sandbox = tonFixture('ton-sandbox-bounce-comment-large.json').data as Record<
  'bounced' | 'comment' | 'large',
  { account: string; boc: string; hash: string; from: string }
>;
const owner = Address.parse('EQAWnJNnwByLThRxli2zLpnj5Ec6r7R-GmpkOkF3pnWPFuF-');
/** The owner's USDT jetton wallet (it sent the 17 and 10 USDT notifications) and USDT's master. */
const JETTON_WALLET = Address.parse('EQBvYvJ6iIYnpFq5nkkNS4NZkyj70ZKqw3RuFlQsni7icgjJ').toRawString();
const MASTER = Address.parse('EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs').toRawString();
/** A jetton wallet the master never named: registered instead, it makes the real one's notifications a look-alike's. */
const OTHER_WALLET = `0:${'77'.repeat(32)}`;
const bytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
const incoming = history.find((i) => i.transaction_id.hash === 'tVP59sxeqaaA7S21TNy+g6o/qynUd8b7SPFq9+4Dj08=');
const word = (c: string) => c.repeat(64).slice(0, 64);

interface Header {
  number: bigint;
  hash: string;
  parentHash: string;
}
const tonBlock = (h: Header, transactions: { account: string; boc: string }[]) =>
  bytes({ seqno: Number(h.number), hash: h.hash, parentHash: h.parentHash, transactions });
const historyTxs = history.map((i) => ({ account: Address.parse(i.address.account_address).toRawString(), boc: i.data }));
const HISTORY_HEADER = { number: 38_000_000n, hash: word('ab'), parentHash: word('cd') };
const SANDBOX_HEADER = { number: 1_000n, hash: word('12'), parentHash: word('34') };

export const TON_NETWORKS = ['mainnet', 'testnet', 'localnet'];
const show = (raw: string, network: string) =>
  Address.parseRaw(raw).toString({ bounceable: false, urlSafe: true, testOnly: network !== 'mainnet' });
const usdtOn = (network: string) => ({
  key: `ton:${network}:${MASTER}`,
  symbol: 'USDT',
  decimals: 6,
  contractAddress: 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs',
  matchKey: MASTER,
});

function blocksOn(network: string): ConformanceBlock[] {
  const scene = { chain: 'ton' as Chain, network };
  const to = owner.toString({ bounceable: false, urlSafe: true, testOnly: network !== 'mainnet' });
  // TON arriving at the owner: an excesses whose query_id is not walletd's, and the incoming 0.3 TON (an empty comment).
  const historyCredits = [
    {
      txHash: '8ce7e395b24e4483227947f340ddd7acab8febc7fadeb386cb162b079e22e33d',
      eventIndex: 0,
      to,
      amount: '53567941',
      assetKey: `ton:${network}:ton`,
      from: 'EQDqiUpFpvfxbjdS_kycd_rvhfcm6BJPBgO7zeDdl9Cc1yec',
      eventType: 'ton_transfer',
    },
    {
      txHash: Buffer.from(incoming?.transaction_id.hash ?? '', 'base64').toString('hex'),
      eventIndex: 0,
      to,
      amount: '300000000',
      assetKey: `ton:${network}:ton`,
      from: 'EQBOB-2EhMl2C1WGjL1cfdDPXb5iAyijJCg--xbRzNVfiX-L',
      extra: { memo: '' },
    },
  ];
  const sandboxCredit = (k: 'comment' | 'large', amount: string, memo: string | null) => ({
    txHash: sandbox[k].hash,
    eventIndex: 0,
    to: show(sandbox[k].account, network),
    amount,
    assetKey: `ton:${network}:ton`,
    from: sandbox[k].from,
    eventType: 'ton_transfer',
    extra: { memo },
  });
  return [
    {
      ...scene,
      name: `ton/${network}: the recorded wallet history (own sends not credited), senders compared (the store drops own-wallet senders); USDT not allow-listed: its notifications credit nothing`,
      raw: tonBlock(HISTORY_HEADER, historyTxs),
      watched: [to, `${JETTON_WALLET}:${MASTER}`],
      tokens: [],
      expected: historyCredits,
      covers: ['unlisted-token', 'internal-movement'],
    },
    {
      ...scene,
      name: `ton/${network}: the same history with USDT allow-listed but another jetton wallet registered: notifications from a wallet the master did not name (the fake-jetton attack) credit nothing`,
      raw: tonBlock(HISTORY_HEADER, historyTxs),
      watched: [to, `${OTHER_WALLET}:${MASTER}`],
      tokens: [usdtOn(network)],
      expected: historyCredits,
      covers: ['look-alike-token'],
    },
    {
      ...scene,
      name: `ton/${network}: sandbox transactions: a bounced 1 TON credits nothing, 1 TON with the comment "invoice 77", 10^16 nanoton exact; the block's seqno, hash and parent`,
      raw: tonBlock(
        SANDBOX_HEADER,
        (['bounced', 'comment', 'large'] as const).map((k) => ({ account: sandbox[k].account, boc: sandbox[k].boc })),
      ),
      header: SANDBOX_HEADER,
      watched: [show(sandbox.bounced.account, network), show(sandbox.comment.account, network), show(sandbox.large.account, network)],
      expected: [sandboxCredit('comment', '1000000000', 'invoice 77'), sandboxCredit('large', '10000000000000000', null)],
      covers: ['failed-transaction', 'memo'],
    },
  ];
}

/** Block N (the comment and the large payment) replaced by N' (empty) and N'+1 (the large payment again). */
function reorgOn(network: string): ConformanceReorg {
  const ancestor = { number: SANDBOX_HEADER.number - 1n, hash: word('a'), parentHash: word('9') };
  const n = ancestor.number + 1n;
  const item = (k: 'comment' | 'large') => ({ account: sandbox[k].account, boc: sandbox[k].boc });
  return {
    name: `ton/${network}: a replaced block drops the comment payment and carries the large one a block later`,
    chain: 'ton',
    network,
    watched: [show(sandbox.comment.account, network), show(sandbox.large.account, network)],
    ancestor,
    orphaned: [tonBlock({ number: n, hash: word('b'), parentHash: ancestor.hash }, [item('comment'), item('large')])],
    replacement: [
      tonBlock({ number: n, hash: word('c'), parentHash: ancestor.hash }, []),
      tonBlock({ number: n + 1n, hash: word('d'), parentHash: word('c') }, [item('large')]),
    ],
  };
}

export const tonSubject = (plugin: ConformanceSubject['plugin']): ConformanceSubject => ({
  plugin,
  targets: TON_NETWORKS.map((network) => ({ chain: 'ton' as Chain, network })),
  blocks: TON_NETWORKS.flatMap(blocksOn),
  reorgs: TON_NETWORKS.map(reorgOn),
  notCovered: {
    'log-index': 'TON has no logs: a transaction receives one inbound message, credited once (eventIndex 0 for TON, 1 for jettons)',
    'destination-tag': 'TON addresses carry no tag (the comment is the memo, compared)',
    'own-change': 'account chain: no change outputs',
    'zero-amount':
      'no sandbox scenario sends 0 here: detect credits a message value or a notified jetton amount > 0 only, and the store drops any amount ≤ 0',
  },
});

/** Withdrawals executed by the real emulator behind the toncenter test adapter (devchains/src/tonSandbox.ts). */
export const tonWithdrawals: WithdrawalConformance = {
  notCovered: withdrawalReasons(),
  chain: 'ton',
  network: 'localnet',
  asset: nativeAsset('ton', 'localnet'),
  recipients: [
    new Address(0, Buffer.alloc(32, 1)).toString({ bounceable: false, testOnly: true }),
    new Address(0, Buffer.alloc(32, 2)).toString({ bounceable: false, testOnly: true }),
  ],
  amount: 1_000_001n,
  token: {
    key: `ton:localnet:${MASTER}`,
    symbol: 'USDT',
    decimals: 6,
    contractAddress: 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs',
  },
  start: async (): Promise<ConformanceNode> => {
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
      // A bounceable payment to an account with no code: the recipient's transaction bounces it back.
      failOnChain: { recipient: new Address(0, Buffer.alloc(32, 3)).toString({ bounceable: true, testOnly: true }), arm: async () => {} },
    };
  },
};

function withdrawalReasons(): WithdrawalConformance['notCovered'] {
  const executesAtOnce = 'the sandbox adapter executes an external message the moment it is sent (only its block waits for mine())';
  return {
    pending: `${executesAtOnce}: there is no pool to hold it in`,
    dropped: `${executesAtOnce}: there is no pool to drop it from`,
    expired: `${executesAtOnce}: it cannot outlive its valid_until unexecuted`,
  };
}
