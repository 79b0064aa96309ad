import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DetectContext, TokenDefinition } from '@walletd/plugin-kit';
import { chainTableOf } from '@walletd/plugin-kit';
import { createEvmPlugin } from './createEvmPlugin';

// The native asset as this plugin declares it (no list of chains outside the plugins).
const nativeAsset = (chain: string, network: string) => chainTableOf(createEvmPlugin().chains).nativeAsset(chain, network);
import { TRANSFER_TOPIC, detect } from './detect';

const FIXTURES = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'ethereum');
const fixture = (name: string) => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'));

const USDT: TokenDefinition = {
  key: 'ethereum:mainnet:0xdac17f958d2ee523a2206206994597c13d831ec7',
  symbol: 'USDT',
  decimals: 6,
  contractAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
  matchKey: '0xdac17f958d2ee523a2206206994597c13d831ec7',
};

function ctx(watched: string[], tokens: TokenDefinition[] = []): DetectContext {
  const set = new Set(watched.map((a) => a.toLowerCase()));
  return {
    chain: 'ethereum',
    network: 'mainnet',
    native: nativeAsset('ethereum', 'mainnet'),
    tokens: new Map(tokens.map((t) => [t.matchKey, t])),
    watched: { has: (k) => set.has(k) },
  };
}

/** Wraps a real transaction (and receipt) into the raw block shape the follower produces. */
function rawBlock(tx: Record<string, unknown>, receipt: Record<string, unknown>): Uint8Array {
  const block = { number: tx.blockNumber, hash: tx.blockHash, parentHash: `0x${'00'.repeat(32)}`, transactions: [tx] };
  return new TextEncoder().encode(JSON.stringify({ block, receipts: [receipt] }));
}

describe('EVM detect on real mainnet data', () => {
  const eth = fixture('eth-mainnet-eip1559-eth-transfer-8ff41d0b.json');
  const tx = eth.data.rpcTransaction;
  const ok = { transactionHash: tx.hash, status: '0x1', logs: [] };

  it('finds a native ETH transfer with the exact amount', () => {
    const r = detect(rawBlock(tx, ok), ctx([eth.expected.to]));
    expect(r.block).toEqual({ number: BigInt(eth.expected.blockNumber), hash: eth.expected.blockHash, parentHash: `0x${'00'.repeat(32)}` });
    expect(r.transfers).toEqual([
      {
        txHash: eth.expected.hash,
        eventIndex: 0,
        from: eth.expected.from.toLowerCase(),
        fromKey: eth.expected.from.toLowerCase(),
        to: eth.expected.to.toLowerCase(),
        toKey: eth.expected.to.toLowerCase(),
        assetKey: 'ethereum:mainnet:eth',
        amount: BigInt(eth.expected.valueWei),
        eventType: 'native_transfer',
      },
    ]);
  });

  it('refuses receipts that do not belong to the block (the follower retries instead of skipping)', () => {
    expect(() =>
      detect(
        new TextEncoder().encode(
          JSON.stringify({ block: { number: '0x1', hash: '0xa', parentHash: '0xb', transactions: [tx] }, receipts: [] }),
        ),
        ctx([eth.expected.to]),
      ),
    ).toThrow(/1 transactions but 0 receipts/);
    expect(() => detect(rawBlock(tx, { ...ok, blockHash: '0xother' }), ctx([eth.expected.to]))).toThrow(/belong to another block/);
  });

  it('credits nothing to unwatched addresses or from a reverted transaction', () => {
    expect(detect(rawBlock(tx, ok), ctx(['0x0000000000000000000000000000000000000001'])).transfers).toEqual([]);
    expect(detect(rawBlock(tx, { ...ok, status: '0x0' }), ctx([eth.expected.to])).transfers).toEqual([]);
  });

  const swap = fixture('eth-mainnet-erc20-transfer-receipt-cd718a69.json');
  const swapTx = swap.data.eth_getTransactionByHash.result;
  const swapReceipt = swap.data.eth_getTransactionReceipt.result;
  const credit = swap.expected.usdtCredit;

  it('finds the USDT Transfer log to a watched address, by topic slicing, with the exact amount', () => {
    const r = detect(rawBlock(swapTx, swapReceipt), ctx([credit.to], [USDT]));
    const position = swapReceipt.logs.findIndex((l: { logIndex: string }) => Number(l.logIndex) === credit.logIndex);
    expect(r.transfers).toEqual([
      {
        txHash: swap.expected.hash,
        eventIndex: position + 1,
        logIndex: credit.logIndex,
        from: credit.from.toLowerCase(),
        fromKey: credit.from.toLowerCase(),
        to: credit.to.toLowerCase(),
        toKey: credit.to.toLowerCase(),
        assetKey: USDT.key,
        amount: BigInt(credit.valueBaseUnits),
        eventType: 'erc20_transfer',
      },
    ]);
  });

  it('reads a block over 128 KiB (parsed in pieces) as it reads a small one: the same credit, its log behind 600 others', () => {
    const filler = (i: number) => ({
      ...swapReceipt.logs[0],
      address: USDT.contractAddress,
      topics: [TRANSFER_TOPIC, `0x${'0'.repeat(24)}${'11'.repeat(20)}`, `0x${'0'.repeat(24)}${i.toString(16).padStart(40, '0')}`],
      data: `0x${(i + 1).toString(16).padStart(64, '0')}`,
    });
    const logs = [...Array.from({ length: 600 }, (_, i) => filler(i)), ...swapReceipt.logs];
    const block = { number: swapTx.blockNumber, hash: swapTx.blockHash, parentHash: `0x${'00'.repeat(32)}`, transactions: [swapTx] };
    // Indented, as some nodes answer: whitespace between every token.
    const raw = new TextEncoder().encode(JSON.stringify({ block, receipts: [{ ...swapReceipt, logs }] }, null, 2));
    expect(raw.byteLength).toBeGreaterThan(128 * 1024);
    const small = detect(rawBlock(swapTx, swapReceipt), ctx([credit.to], [USDT]));
    const large = detect(raw, ctx([credit.to], [USDT]));
    expect(small.transfers).toHaveLength(1);
    expect(large.transfers).toEqual(small.transfers.map((t) => ({ ...t, eventIndex: t.eventIndex + 600 })));
    expect(large.block).toEqual(small.block);
  });

  it('never credits a contract that is not allow-listed, even one calling itself USDT', () => {
    expect(detect(rawBlock(swapTx, swapReceipt), ctx([credit.to])).transfers).toEqual([]);
    const fake: TokenDefinition = {
      ...USDT,
      key: 'ethereum:mainnet:0xfake',
      contractAddress: '0x1111111111111111111111111111111111111111',
      matchKey: '0x1111111111111111111111111111111111111111',
    };
    expect(detect(rawBlock(swapTx, swapReceipt), ctx([credit.to], [fake])).transfers).toEqual([]);
    expect(detect(rawBlock(swapTx, { ...swapReceipt, status: '0x0' }), ctx([credit.to], [USDT])).transfers).toEqual([]);
  });

  it('credits no Transfer log of 0 (address poisoning), and reports the credited balance change for the follower to check', () => {
    const position = swapReceipt.logs.findIndex((l: { logIndex: string }) => Number(l.logIndex) === credit.logIndex);
    const zero = {
      ...swapReceipt,
      logs: swapReceipt.logs.map((l: { data: string }, i: number) => (i === position ? { ...l, data: `0x${'0'.repeat(64)}` } : l)),
    };
    const none = detect(rawBlock(swapTx, zero), ctx([credit.to], [USDT]));
    expect([none.transfers, none.balanceChanges]).toEqual([[], undefined]);
    expect(detect(rawBlock(swapTx, swapReceipt), ctx([credit.to], [USDT])).balanceChanges).toEqual([
      { toKey: credit.to.toLowerCase(), assetKey: USDT.key, delta: BigInt(credit.valueBaseUnits) },
    ]);
  });

  it('keeps eventIndex when the transaction is mined again in another block', () => {
    const moved = {
      ...swapReceipt,
      logs: swapReceipt.logs.map((l: { logIndex: string }) => ({ ...l, logIndex: `0x${(Number(l.logIndex) + 7).toString(16)}` })),
    };
    const a = detect(rawBlock(swapTx, swapReceipt), ctx([credit.to], [USDT])).transfers[0];
    const b = detect(rawBlock({ ...swapTx, blockNumber: '0x107d7b5' }, moved), ctx([credit.to], [USDT])).transfers[0];
    expect(b?.eventIndex).toBe(a?.eventIndex);
    expect(b?.logIndex).toBe((a?.logIndex ?? 0) + 7);
  });

  it('is pure: the same bytes give the same result, and the input is not modified', () => {
    const raw = rawBlock(swapTx, swapReceipt);
    const copy = Uint8Array.from(raw);
    const c = ctx([credit.to, swap.expected.from], [USDT]);
    expect(detect(raw, c)).toEqual(detect(raw, c));
    expect(Buffer.from(raw).equals(Buffer.from(copy))).toBe(true);
  });
});
