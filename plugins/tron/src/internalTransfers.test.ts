import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DetectContext, chainTableOf } from '@walletd/plugin-kit';
import { createTronPlugin } from './createTronPlugin';
import { detect } from './detect';
import { INTERNAL_EVENT_BASE } from './internalTransfers';

const FIXTURES = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'tron');
const fixture = (name: string) => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'));
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v));

/** A real java-tron 4.8.2 answer: contract 41a4de54… sent 1 sun to 41dcf295… (internal_transactions[0]). */
const recorded = fixture('tron-privnet-internal-tx-7c44d197.json');
const INFO = recorded.data.transactionInfo;
const CONTRACT = 'a4de5410785ffffc7c210f126f7534d868c2ecc9';
const RECIPIENT = 'dcf2957055e8fcde477a077ecfeddf5ab2357547';
const native = chainTableOf(createTronPlugin().chains).nativeAsset('tron', 'mainnet');

function ctx(watched: string[]): DetectContext {
  const set = new Set(watched);
  return { chain: 'tron', network: 'mainnet', native, tokens: new Map(), watched: { has: (k) => set.has(k) } };
}

/**
 * The block around the recorded info: MADE UP here (the source recorded neither the transaction
 * nor block 158): a TriggerSmartContract on the recorded contract with the info's txID, at the
 * info's height and time, so detect pairs them as it pairs a node's answers.
 */
function block(contractRet = 'SUCCESS') {
  return {
    blockID: `${(158).toString(16).padStart(16, '0')}${'ab'.repeat(24)}`,
    block_header: {
      raw_data: { number: 158, parentHash: `${(157).toString(16).padStart(16, '0')}${'cd'.repeat(24)}`, timestamp: INFO.blockTimeStamp },
    },
    transactions: [
      {
        txID: INFO.id,
        ret: [{ contractRet }],
        raw_data: {
          contract: [
            {
              type: 'TriggerSmartContract',
              parameter: { value: { owner_address: '41'.padEnd(42, '7'), contract_address: `41${CONTRACT}`, data: '00000000' } },
            },
          ],
        },
      },
    ],
  };
}
const bytes = (b: unknown, infos: unknown, tail = '') =>
  new TextEncoder().encode(`{"block":${JSON.stringify(b)},"infos":${JSON.stringify(infos)}${tail}}`);

describe('Tron internal transactions (TRX sent by contracts)', () => {
  it('credits the recorded internal transaction once: 1 sun from the contract, eventIndex 1e9 + its position', () => {
    const r = detect(bytes(block(), [INFO]), ctx([RECIPIENT]));
    expect(r.transfers).toEqual([
      {
        txHash: INFO.id,
        eventIndex: INTERNAL_EVENT_BASE,
        from: CONTRACT,
        fromKey: CONTRACT,
        to: RECIPIENT,
        toKey: RECIPIENT,
        assetKey: 'tron:mainnet:trx',
        amount: 1n,
        eventType: 'internal_transfer',
      },
    ]);
    expect(detect(bytes(block(), [INFO]), ctx(['0000000000000000000000000000000000000001'])).transfers).toEqual([]);
  });

  // The variants below are the recorded info with one field changed BY HAND.
  it('never credits a rejected internal transaction (its frame or an ancestor reverted)', () => {
    const info = clone(INFO);
    info.internal_transactions[0].rejected = true;
    expect(detect(bytes(block(), [info]), ctx([RECIPIENT])).transfers).toEqual([]);
  });

  it.each(['REVERT', 'OUT_OF_ENERGY'])('never credits the internal transactions of a transaction whose result is %s', (result) => {
    const info = clone(INFO);
    info.receipt.result = result;
    // Not rejected here on purpose: the outer result alone must be enough.
    expect(detect(bytes(block(), [info]), ctx([RECIPIENT])).transfers).toEqual([]);
    expect(detect(bytes(block(result), [INFO]), ctx([RECIPIENT])).transfers).toEqual([]);
  });

  it('credits TRX only: a TRC-10 value (tokenId) and a zero value (a plain call) are not credited', () => {
    const info = clone(INFO);
    info.internal_transactions[0].callValueInfo = [{}, { callValue: 5, tokenId: '1002000' }];
    expect(detect(bytes(block(), [info]), ctx([RECIPIENT])).transfers).toEqual([]);
    info.internal_transactions[0].callValueInfo = [{ callValue: 7 }, { callValue: 5, tokenId: '1002000' }];
    expect(detect(bytes(block(), [info]), ctx([RECIPIENT])).transfers.map((t) => t.amount)).toEqual([7n]);
  });

  it('gives each internal transaction its own stable index, distinct from the TRX and TRC-20 ones, exact above 2^53', () => {
    const info = clone(INFO);
    const first = info.internal_transactions[0];
    const suicide = Buffer.from('suicide').toString('hex');
    info.internal_transactions = [
      { ...first, rejected: true },
      { ...first, callValueInfo: [{ callValue: 424242 }] },
      { ...first, note: suicide },
    ];
    // 2^53 + 1 as the node would print it: a float would lose the last sun.
    const text = JSON.stringify(info).replace('424242', '9007199254740993');
    const raw = new TextEncoder().encode(`{"block":${JSON.stringify(block())},"infos":[${text}]}`);
    const r = detect(raw, ctx([RECIPIENT]));
    expect(r.transfers.map((t) => [t.eventIndex, t.amount])).toEqual([
      [INTERNAL_EVENT_BASE + 1, 9007199254740993n],
      [INTERNAL_EVENT_BASE + 2, 1n],
    ]);
  });

  it('reads none when the chain entry says internalTransfers "off"', () => {
    expect(detect(bytes(block(), [INFO], ',"internalTransfers":"off"'), ctx([RECIPIENT])).transfers).toEqual([]);
  });
});
