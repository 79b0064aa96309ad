import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DetectContext, type TokenDefinition, chainTableOf } from '@walletd/plugin-kit';
import { createTronPlugin } from './createTronPlugin';

// The native asset as this plugin declares it (no list of chains outside the plugins).
const nativeAsset = (chain: string, network: string) => chainTableOf(createTronPlugin().chains).nativeAsset(chain, network);
import { detect } from './detect';

const FIXTURES = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'tron');
const fixture = (name: string) => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'));
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v));

const blockFixture = fixture('tron-mainnet-block-30864544.json');
const trxFixture = fixture('tron-mainnet-trx-transfer-d8b11250.json');
const usdtFixture = fixture('tron-mainnet-trc20-usdt-transfer-0130dfde.json');

/** USDT as the operator allow-lists it: the mainnet contract TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t in match form. */
const USDT: TokenDefinition = {
  key: 'tron:mainnet:a614f803b6fd780986a42c78ec9c7f77e6ded13c',
  symbol: 'USDT',
  decimals: 6,
  contractAddress: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
  matchKey: 'a614f803b6fd780986a42c78ec9c7f77e6ded13c',
};
/** A look-alike: another contract that also calls itself USDT. */
const FAKE_USDT: TokenDefinition = {
  ...USDT,
  key: 'tron:mainnet:1111111111111111111111111111111111111111',
  matchKey: '1111111111111111111111111111111111111111',
};

const key = (hex41: string) => hex41.slice(2).toLowerCase();
/** The recorded block's timestamp: the blockTimeStamp of its transactions' infos. */
const BLOCK_TIME = blockFixture.data.block_header.raw_data.timestamp;

function ctx(watched: string[], tokens: TokenDefinition[] = []): DetectContext {
  const set = new Set(watched);
  return {
    chain: 'tron',
    network: 'mainnet',
    native: nativeAsset('tron', 'mainnet'),
    tokens: new Map(tokens.map((t) => [t.matchKey, t])),
    watched: { has: (k) => set.has(k) },
  };
}

/** What the reader hands the worker: the two node answers, spliced as text. */
const bytes = (block: unknown, infos: unknown) =>
  new TextEncoder().encode(`{"block":${JSON.stringify(block)},"infos":${JSON.stringify(infos)}}`);

/**
 * A recorded transaction (TronGrid account-history item) in a block envelope: the transaction and
 * its info are real; the envelope (id, parent) is made up here, since the source recorded no block.
 */
function envelope(tx: Record<string, any>, number: number, extra: Record<string, any>[] = []) {
  const {
    blockNumber: _b,
    block_timestamp: _t,
    net_usage: _n,
    net_fee: _f,
    energy_usage: _e,
    energy_fee: _ef,
    energy_usage_total: _et,
    internal_transactions: _i,
    ...plain
  } = tx;
  return {
    blockID: number.toString(16).padStart(16, '0') + 'ab'.repeat(24),
    block_header: {
      // The recorded item's block time: its info's blockTimeStamp, which detect pairs the block by.
      raw_data: { number, parentHash: (number - 1).toString(16).padStart(16, '0') + 'cd'.repeat(24), timestamp: tx.block_timestamp },
    },
    transactions: [plain, ...extra],
  };
}

describe('Tron detect on real mainnet data', () => {
  it('block 30864544 (a recorded /wallet/getblockbynum answer): the 50 TRX TransferContract, exactly', () => {
    const block = blockFixture.data;
    const tx = block.transactions[0];
    const expected = blockFixture.expected.transfers[0];
    // Not recorded with the block: its /wallet/gettransactioninfobyblocknum answer, in the shape of
    // the recorded TRX info of d8b11250 (a TRX transfer's info carries only bandwidth).
    const infos = [
      { id: tx.txID, blockNumber: 30864544, blockTimeStamp: 1623055923000, contractResult: [''], receipt: { net_usage: 267 } },
    ];
    const r = detect(bytes(block, infos), ctx([key(expected.toHex)]));
    expect(r.block).toEqual({
      number: 30864544n,
      hash: blockFixture.expected.blockID,
      parentHash: blockFixture.expected.parentHash,
      timestamp: 1623055923,
    });
    expect(r.transfers).toEqual([
      {
        txHash: expected.txID,
        eventIndex: 0,
        from: 'c33eeefda1059afba41d86759e281bcb851edfc8',
        fromKey: 'c33eeefda1059afba41d86759e281bcb851edfc8',
        to: key(expected.toHex),
        toKey: key(expected.toHex),
        assetKey: 'tron:mainnet:trx',
        amount: BigInt(expected.amountSun),
        eventType: 'native_transfer',
      },
    ]);
  });

  it('the recorded TRX transfer d8b11250 with its recorded info: 177.986418 TRX to TL24LCps…', () => {
    const e = trxFixture.expected;
    const r = detect(bytes(envelope(trxFixture.data.transaction, e.blockNumber), [trxFixture.data.transactionInfo]), ctx([key(e.toHex)]));
    expect(r.transfers.map((t) => [t.txHash, t.eventIndex, t.toKey, t.amount, t.assetKey, t.from])).toEqual([
      [e.txID, 0, key(e.toHex), 177986418n, 'tron:mainnet:trx', key(e.fromHex)],
    ]);
  });

  it('the recorded USDT transfer 0130dfde: credited from the Transfer log of the allow-listed contract only', () => {
    const e = usdtFixture.expected;
    const raw = bytes(envelope(usdtFixture.data.transaction, e.blockNumber), [usdtFixture.data.transactionInfo]);
    expect(detect(raw, ctx([key(e.toHex)], [USDT])).transfers).toEqual([
      {
        txHash: e.txID,
        eventIndex: 1,
        from: '6e3b44b96104b26f84057974a1f0c9880f7c9b13',
        fromKey: '6e3b44b96104b26f84057974a1f0c9880f7c9b13',
        to: key(e.toHex),
        toKey: key(e.toHex),
        assetKey: USDT.key,
        amount: 41677389n,
        eventType: 'trc20_transfer',
      },
    ]);
    // Not allow-listed: nothing, however real the transfer.
    expect(detect(raw, ctx([key(e.toHex)])).transfers).toEqual([]);
    // Allow-listing a look-alike instead does not make the real contract's log count, nor the reverse.
    expect(detect(raw, ctx([key(e.toHex)], [FAKE_USDT])).transfers).toEqual([]);
  });

  it('never credits a look-alike contract emitting the same Transfer log, in the same transaction as a real one or alone', () => {
    const e = usdtFixture.expected;
    const info = clone(usdtFixture.data.transactionInfo);
    const realLog = info.log[0];
    info.log = [{ ...realLog, address: FAKE_USDT.matchKey }, realLog];
    const r = detect(bytes(envelope(usdtFixture.data.transaction, e.blockNumber), [info]), ctx([key(e.toHex)], [USDT]));
    expect(r.transfers.map((t) => [t.eventIndex, t.assetKey, t.amount])).toEqual([[2, USDT.key, 41677389n]]);
    info.log = [{ ...realLog, address: FAKE_USDT.matchKey }];
    expect(detect(bytes(envelope(usdtFixture.data.transaction, e.blockNumber), [info]), ctx([key(e.toHex)], [USDT])).transfers).toEqual([]);
  });

  it.each(['REVERT', 'OUT_OF_ENERGY', 'OUT_OF_TIME'])('never credits a call whose receipt is %s, even with a log beside it', (result) => {
    const e = usdtFixture.expected;
    const info = clone(usdtFixture.data.transactionInfo);
    info.receipt.result = result;
    info.result = 'FAILED';
    expect(detect(bytes(envelope(usdtFixture.data.transaction, e.blockNumber), [info]), ctx([key(e.toHex)], [USDT])).transfers).toEqual([]);
    // The block's own contractRet says it too: either one failing is enough.
    const tx = clone(usdtFixture.data.transaction);
    tx.ret = [{ contractRet: result }];
    expect(detect(bytes(envelope(tx, e.blockNumber), [usdtFixture.data.transactionInfo]), ctx([key(e.toHex)], [USDT])).transfers).toEqual(
      [],
    );
  });

  it('never credits a transfer call that emitted no log, though its calldata names the watched address and amount', () => {
    const e = usdtFixture.expected;
    expect(usdtFixture.data.transaction.raw_data.contract[0].parameter.value.data).toContain(key(e.toHex));
    const info = clone(usdtFixture.data.transactionInfo);
    info.log = [];
    expect(detect(bytes(envelope(usdtFixture.data.transaction, e.blockNumber), [info]), ctx([key(e.toHex)], [USDT])).transfers).toEqual([]);
    delete info.log;
    expect(detect(bytes(envelope(usdtFixture.data.transaction, e.blockNumber), [info]), ctx([key(e.toHex)], [USDT])).transfers).toEqual([]);
  });

  it('never credits a failed TRX transfer, an unwatched recipient, a zero amount, or a 4-topic (TRC-721) Transfer', () => {
    const tx = clone(blockFixture.data.transactions[0]);
    const to = key(blockFixture.expected.transfers[0].toHex);
    const info = [{ id: tx.txID, blockNumber: 30864544, blockTimeStamp: BLOCK_TIME, receipt: { net_usage: 267 } }];
    const block = { ...blockFixture.data, transactions: [tx] };
    tx.ret = [{ contractRet: 'REVERT' }];
    expect(detect(bytes(block, info), ctx([to])).transfers).toEqual([]);
    tx.ret = [{ contractRet: 'SUCCESS' }];
    expect(detect(bytes(block, info), ctx(['0000000000000000000000000000000000000001'])).transfers).toEqual([]);
    tx.raw_data.contract[0].parameter.value.amount = 0;
    expect(detect(bytes(block, info), ctx([to])).transfers).toEqual([]);

    const e = usdtFixture.expected;
    const zero = clone(usdtFixture.data.transactionInfo);
    zero.log[0].data = '0'.repeat(64);
    expect(detect(bytes(envelope(usdtFixture.data.transaction, e.blockNumber), [zero]), ctx([key(e.toHex)], [USDT])).transfers).toEqual([]);
    const nft = clone(usdtFixture.data.transactionInfo);
    nft.log[0].topics.push('0'.repeat(63) + '1');
    expect(detect(bytes(envelope(usdtFixture.data.transaction, e.blockNumber), [nft]), ctx([key(e.toHex)], [USDT])).transfers).toEqual([]);
  });

  it('parses amounts without a float: a JSON number above 2^53 sun arrives exactly', () => {
    const tx = clone(blockFixture.data.transactions[0]);
    const to = key(blockFixture.expected.transfers[0].toHex);
    const text = JSON.stringify({ ...blockFixture.data, transactions: [tx] }).replace('"amount":50000000', '"amount":9007199254740993');
    const infos = JSON.stringify([{ id: tx.txID, blockNumber: 30864544, blockTimeStamp: BLOCK_TIME }]);
    const r = detect(new TextEncoder().encode(`{"block":${text},"infos":${infos}}`), ctx([to]));
    // Number(9007199254740993) is 9007199254740992: a float would lose the last sun.
    expect(r.transfers[0]?.amount).toBe(9007199254740993n);
    const fraction = text.replace('"amount":9007199254740993', '"amount":1.5');
    expect(detect(new TextEncoder().encode(`{"block":${fraction},"infos":${infos}}`), ctx([to])).transfers).toEqual([]);
  });

  it('carries a memo (raw_data.data) when it is UTF-8', () => {
    const tx = clone(blockFixture.data.transactions[0]);
    tx.raw_data.data = Buffer.from('invoice 42').toString('hex');
    const r = detect(
      bytes({ ...blockFixture.data, transactions: [tx] }, [{ id: tx.txID, blockNumber: 30864544, blockTimeStamp: BLOCK_TIME }]),
      ctx([key(blockFixture.expected.transfers[0].toHex)]),
    );
    expect(r.transfers[0]?.extra).toEqual({ memo: 'invoice 42' });
  });

  it('refuses infos that do not belong to the block (the follower retries instead of skipping)', () => {
    const e = usdtFixture.expected;
    const block = envelope(usdtFixture.data.transaction, e.blockNumber);
    expect(() => detect(bytes(block, []), ctx([key(e.toHex)], [USDT]))).toThrow(/1 transactions but 0 transaction infos/);
    expect(() =>
      detect(bytes(block, [{ ...usdtFixture.data.transactionInfo, blockNumber: e.blockNumber + 1 }]), ctx([key(e.toHex)], [USDT])),
    ).toThrow(/belong to another block/);
    // Same height and count, another block: an info of another transaction, or of the same
    // transaction in another fork's block at this height (made in another slot: another time).
    expect(() => detect(bytes(block, [{ ...usdtFixture.data.transactionInfo, id: 'ff'.repeat(32) }]), ctx([key(e.toHex)], [USDT]))).toThrow(
      /belong to another block/,
    );
    const forked = { ...usdtFixture.data.transactionInfo, blockTimeStamp: usdtFixture.data.transactionInfo.blockTimeStamp + 3000 };
    expect(() => detect(bytes(block, [forked]), ctx([key(e.toHex)], [USDT]))).toThrow(/belong to another block/);
    expect(() => detect(bytes({}, []), ctx([]))).toThrow(/no block/);
  });

  it('keeps eventIndex when the transaction is included again in another block', () => {
    const e = usdtFixture.expected;
    const a = detect(
      bytes(envelope(usdtFixture.data.transaction, e.blockNumber), [usdtFixture.data.transactionInfo]),
      ctx([key(e.toHex)], [USDT]),
    );
    const moved = { ...usdtFixture.data.transactionInfo, blockNumber: e.blockNumber + 5 };
    const other = clone(blockFixture.data.transactions[0]);
    const b = detect(
      bytes(envelope(usdtFixture.data.transaction, e.blockNumber + 5, [other]), [
        { id: other.txID, blockNumber: e.blockNumber + 5, blockTimeStamp: moved.blockTimeStamp },
        moved,
      ]),
      ctx([key(e.toHex)], [USDT]),
    );
    expect(b.transfers.map((t) => [t.txHash, t.eventIndex])).toEqual(a.transfers.map((t) => [t.txHash, t.eventIndex]));
  });

  it('is pure: the same bytes give the same result, and the input is not modified', () => {
    const e = usdtFixture.expected;
    const raw = bytes(envelope(usdtFixture.data.transaction, e.blockNumber), [usdtFixture.data.transactionInfo]);
    const copy = Uint8Array.from(raw);
    const c = ctx([key(e.toHex)], [USDT]);
    expect(detect(raw, c)).toEqual(detect(raw, c));
    expect(Buffer.from(raw).equals(Buffer.from(copy))).toBe(true);
  });
});
