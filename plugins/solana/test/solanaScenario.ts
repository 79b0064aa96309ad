import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Chain } from '@walletd/plugin-kit';
import type {
  ConformanceBlock,
  ConformanceNode,
  ConformanceReorg,
  ConformanceSubject,
  WithdrawalConformance,
} from '@walletd/plugin-kit/testing';
import { TOKEN_EVENT_OFFSET } from '@walletd/plugin-solana';
import { nativeAsset, startSolanaSvm } from '@walletd/test-harness';

/**
 * The Solana family's scenario for the public kit (solana.conformance.test.ts, mutants.test.ts).
 * Real records (test/fixtures/solana): mainnet block 147078735 exactly as getBlock answered it
 * (jsonParsed, 25 transactions, its blockhash and previousBlockhash), and two devnet transactions
 * (getTransaction: 0.1 SOL 2qfNzGs1, 0.01 USDC 3Zj5XkvE). A recorded transaction placed in a block
 * made up here says so; so does each twin that differs from its record in one field (a failed
 * transaction, a look-alike mint, a balance above 2^53).
 */
type Json = Record<string, any>;
const fixture = (name: string) => JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'test', 'fixtures', 'solana', name), 'utf8'));
const mainnetBlock = fixture('sol-mainnet-block-jsonparsed-147078735.json');
const facts = fixture('sol-mainnet-block-jsonparsed-147078735.expected.json').expected;
const solTx = fixture('sol-devnet-native-sol-transfer-2qfNzGs1.json');
const usdcTx = fixture('sol-devnet-spl-usdc-transfer-3Zj5XkvE.json');
const enc = (o: unknown) => new TextEncoder().encode(JSON.stringify(o));

const word = (c: string) => c.repeat(44).slice(0, 44);
interface Header {
  number: bigint;
  hash: string;
  parentHash: string;
}
/** Recorded getTransaction answers as the transactions of a block made up here. */
const solBlock = (h: Header, txs: Json[]) =>
  JSON.stringify({
    slot: Number(h.number),
    block: {
      blockhash: h.hash,
      previousBlockhash: h.parentHash,
      parentSlot: Number(h.number) - 1,
      transactions: txs.map((r) => ({ transaction: r.transaction, meta: r.meta, version: r.version })),
    },
  });
const SOL_HEADER = { number: BigInt(solTx.data.result.slot), hash: word('A'), parentHash: word('B') };
const USDC_HEADER = { number: BigInt(usdcTx.data.result.slot), hash: word('C'), parentHash: word('D') };
const sol: Json = solTx.data.result;
const usdc: Json = usdcTx.data.result;

const WSOL = 'So11111111111111111111111111111111111111112';
const DEVNET_USDC = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU';
/** A mint one character off devnet USDC: the same transfer of another token. */
const LOOK_ALIKE = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDV';
const usdcToken = { key: `solana:devnet:${DEVNET_USDC}`, symbol: 'USDC', decimals: 6, contractAddress: DEVNET_USDC, matchKey: DEVNET_USDC };
const USDC_WATCHED = ['BXT1K8kzYXWMi6ihg7m9UqiHW4iJbJ69zumELHE9oBLe', '644PJ6UW8e4gQpjKdBVd4MCYasWjSECKjqd2qzdeAJY6'];
/** 2^53 + 1 lamports, written into the JSON as the number a node would send (a double cannot hold it). */
const ABOVE_2_53 = '9007199254740993';

// Transaction 1 of the mainnet block: BYM81n…'s wSOL account 16 rose by 12500.
const tx1 = mainnetBlock.data.result.transactions[1];
const rise = facts.transactions[1].tokenBalanceDeltas[0];
const account16 = tx1.transaction.message.accountKeys[rise.accountIndex].pubkey as string;
type Delta = { accountIndex: number; deltaBaseUnits: string };
const keyAt = (tx: number, index: number) =>
  mainnetBlock.data.result.transactions[tx].transaction.message.accountKeys[index].pubkey as string;
const result = mainnetBlock.data.result;

const solCredit = {
  txHash: solTx.expected.signature,
  eventIndex: 1,
  to: solTx.expected.transfer.to,
  amount: '100000000',
  assetKey: 'solana:devnet:sol',
  from: solTx.expected.transfer.from,
  eventType: 'sol_transfer',
};
const usdcCredit = {
  txHash: usdcTx.expected.signature,
  eventIndex: TOKEN_EVENT_OFFSET + 1,
  to: '644PJ6UW8e4gQpjKdBVd4MCYasWjSECKjqd2qzdeAJY6',
  amount: '10000',
  assetKey: `solana:devnet:${DEVNET_USDC}`,
  from: usdcTx.expected.transfer.fromOwner,
  eventType: 'spl_transfer',
};
const withMint = (balances: Json[], mint: string) => balances.map((b) => ({ ...b, mint }));
const scene = { chain: 'solana' as Chain, network: 'devnet' };

export const SOLANA_BLOCKS: ConformanceBlock[] = [
  {
    name: 'mainnet block 147078735 as recorded (jsonParsed, 25 txs): a wSOL credit through an inner instruction; its slot, hash and parent',
    chain: 'solana',
    network: 'mainnet',
    raw: enc({ slot: 147078735, block: mainnetBlock.data }),
    header: { number: 147078735n, hash: result.blockhash, parentHash: result.previousBlockhash },
    watched: [account16, rise.owner],
    tokens: [{ key: `solana:mainnet:${WSOL}`, symbol: 'wSOL', decimals: 9, contractAddress: WSOL, matchKey: WSOL }],
    // Every rise of that account in the block, from the recorded facts (it takes other indexes in other transactions).
    expected: facts.transactions.flatMap((t: { signature: string; tokenBalanceDeltas: Delta[] }, i: number) =>
      t.tokenBalanceDeltas
        .filter((d) => BigInt(d.deltaBaseUnits) > 0n && keyAt(i, d.accountIndex) === account16)
        .map((d) => ({
          txHash: t.signature,
          eventIndex: TOKEN_EVENT_OFFSET + d.accountIndex,
          to: account16,
          amount: d.deltaBaseUnits,
          assetKey: `solana:mainnet:${WSOL}`,
        })),
    ),
  },
  {
    name: 'mainnet block 147078735 with wSOL not on the allow-list: the same rises credit nothing',
    chain: 'solana',
    network: 'mainnet',
    raw: enc({ slot: 147078735, block: mainnetBlock.data }),
    watched: [account16, rise.owner],
    tokens: [],
    expected: [],
    covers: ['unlisted-token'],
  },
  {
    ...scene,
    name: 'devnet SOL transfer 2qfNzGs1, its sender compared (the store drops own-wallet senders as internal movements)',
    raw: enc(JSON.parse(solBlock(SOL_HEADER, [sol]))),
    watched: [solTx.expected.transfer.to],
    expected: [solCredit],
    covers: ['internal-movement'],
  },
  {
    ...scene,
    name: 'devnet SOL transfer 2qfNzGs1 as if it had failed (meta.err set, made up; balances as recorded) credits nothing',
    raw: enc(JSON.parse(solBlock(SOL_HEADER, [{ ...sol, meta: { ...sol.meta, err: { InstructionError: [0, 'Custom(1)'] } } }]))),
    watched: [solTx.expected.transfer.to],
    expected: [],
    covers: ['failed-transaction'],
  },
  {
    ...scene,
    name: `devnet SOL transfer 2qfNzGs1 with the recipient's balance after it set to 2^53 + 1 lamports (made up) is exact`,
    raw: new TextEncoder().encode(
      solBlock(SOL_HEADER, [
        { ...sol, meta: { ...sol.meta, postBalances: [sol.meta.postBalances[0], -1, sol.meta.postBalances[2]] } },
      ]).replace('-1', ABOVE_2_53),
    ),
    watched: [solTx.expected.transfer.to],
    expected: [{ ...solCredit, amount: ABOVE_2_53 }],
  },
  {
    ...scene,
    name: 'devnet USDC transfer 3Zj5XkvE (through the owner’s ATA), sender compared',
    raw: enc(JSON.parse(solBlock(USDC_HEADER, [usdc]))),
    watched: USDC_WATCHED,
    tokens: [usdcToken],
    expected: [usdcCredit],
  },
  {
    ...scene,
    name: 'devnet USDC transfer 3Zj5XkvE of a look-alike mint (one character off USDC, made up) credits nothing',
    raw: enc(
      JSON.parse(
        solBlock(USDC_HEADER, [
          {
            ...usdc,
            meta: {
              ...usdc.meta,
              preTokenBalances: withMint(usdc.meta.preTokenBalances, LOOK_ALIKE),
              postTokenBalances: withMint(usdc.meta.postTokenBalances, LOOK_ALIKE),
            },
          },
        ]),
      ),
    ),
    watched: USDC_WATCHED,
    tokens: [usdcToken],
    expected: [],
    covers: ['look-alike-token'],
  },
];

/** Slot N (SOL and USDC) replaced by N' (empty) and N'+1 (the USDC transfer again). */
export const SOLANA_REORG: ConformanceReorg = (() => {
  const ancestor = { number: SOL_HEADER.number - 1n, hash: word('a'), parentHash: word('9') };
  const n = ancestor.number + 1n;
  const raw = (h: Header, txs: Json[]) => new TextEncoder().encode(solBlock(h, txs));
  return {
    name: 'devnet: a fork drops the SOL transfer and carries the USDC transfer one slot later',
    ...scene,
    watched: [solTx.expected.transfer.to, ...USDC_WATCHED],
    tokens: [usdcToken],
    ancestor,
    orphaned: [raw({ number: n, hash: word('b'), parentHash: ancestor.hash }, [sol, usdc])],
    replacement: [
      raw({ number: n, hash: word('c'), parentHash: ancestor.hash }, []),
      raw({ number: n + 1n, hash: word('d'), parentHash: word('c') }, [usdc]),
    ],
  };
})();

const targets: { chain: Chain; network: string }[] = ['mainnet', 'devnet', 'testnet', 'localnet'].map((network) => ({
  chain: 'solana',
  network,
}));

export const solanaSubject = (plugin: ConformanceSubject['plugin']): ConformanceSubject => ({
  plugin,
  targets,
  blocks: SOLANA_BLOCKS,
  reorgs: [SOLANA_REORG],
  vectors: targets.map(({ chain, network }) => ({
    chain,
    network,
    mnemonic: 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
    index: 0,
    // Phantom's and Solflare's first account for this mnemonic (m/44'/501'/0'/0').
    address: 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk',
  })),
  notCovered: {
    'log-index': 'Solana credits are balance changes, not logs: a credit is identified by its account index (eventIndex), compared',
    memo: 'every Solana deposit has its own address (and token account); the plugin reads no Memo program instruction (capabilities.memo false)',
    'destination-tag': 'Solana addresses carry no tag',
    'own-change': 'account chain: no change outputs',
    'zero-amount': 'credits are balance rises (post − pre > 0): a transfer of 0 changes no balance and is never a credit',
  },
});

/**
 * Withdrawals executed by litesvm behind the JSON-RPC adapter (devchains/src/solanaSvm.ts): the
 * adapter seals every transaction it is sent into a block at once, so nothing waits in a pool.
 */
export const solanaWithdrawals: WithdrawalConformance = {
  notCovered: {
    pending: 'the litesvm adapter executes and seals a transaction the moment it is sent: there is no pool to hold it in',
    dropped: 'the litesvm adapter has no pool to drop a transaction from',
    expired:
      'the kit expires a broadcast transaction held in a pool, and this adapter has none; expiry of a signed, unsent one (block height past lastValidBlockHeight) is checked in test/src/integration/solanaWithdrawals.test.ts',
    failed_on_chain:
      'the plugin broadcasts with preflight: a transfer that would fail is refused at broadcast (insufficient_funds), never included; one executed without preflight reads failed_on_chain with its fee in test/src/integration/solanaWithdrawals.test.ts',
  },
  chain: 'solana',
  network: 'localnet',
  asset: nativeAsset('solana', 'localnet'),
  recipients: ['9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM', 'GdnSyH3YtwcxFvQrVVJMm1JhTS4QVX7MFsX56uJLUfiZ'],
  amount: 1_000_000_001n,
  token: { key: `solana:localnet:${DEVNET_USDC}`, symbol: 'USDC', decimals: 6, contractAddress: DEVNET_USDC },
  start: async (): Promise<ConformanceNode> => {
    const node = await startSolanaSvm();
    return {
      rpcUrl: node.url,
      fund: async (address) => {
        await node.sendSol(address, 10_000_000_000n);
      },
      settle: async () => {},
      stop: () => node.close(),
    };
  },
};
