import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BaseError, type UnsignedWithdrawal } from '@walletd/plugin-kit';
import { utils } from 'tronweb';
import { formatTronAddress } from '../addresses';
import { encodeSignedTransaction } from '../protobuf';
import { nodeRefusal as broadcastRefusal } from '../nodeRefusal';
import { type TronTxPayload, assemble } from '../payload';
import { createTronWithdrawals } from './index';

const FIXTURES = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'tron');
const fixture = (name: string) => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'));
const block = fixture('tron-mainnet-block-30864544.json');
const trx = fixture('tron-mainnet-trx-transfer-d8b11250.json');
const usdt = fixture('tron-mainnet-trc20-usdt-transfer-0130dfde.json');
const USDT = {
  key: 'tron:mainnet:a614f803b6fd780986a42c78ec9c7f77e6ded13c',
  symbol: 'USDT',
  decimals: 6,
  contractAddress: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
};
const TRX = { key: 'tron:mainnet:trx', symbol: 'TRX', decimals: 6, contractAddress: null };

/** The fields of a recorded transaction, as walletd's payload names them. */
function fieldsOf(tx: Record<string, any>): Omit<TronTxPayload, 'rawDataHex' | 'txID' | 'feeParts'> {
  const raw = tx.raw_data;
  const v = raw.contract[0].parameter.value;
  const trc20 = raw.contract[0].type === 'TriggerSmartContract';
  return {
    kind: trc20 ? 'trc20' : 'trx',
    owner: formatTronAddress(v.owner_address),
    to: formatTronAddress(trc20 ? v.data.slice(8 + 24, 72) : v.to_address),
    amount: trc20 ? BigInt(`0x${v.data.slice(72)}`).toString() : String(v.amount),
    ...(trc20 ? { contract: formatTronAddress(v.contract_address), feeLimit: String(raw.fee_limit) } : {}),
    refBlockBytes: raw.ref_block_bytes,
    refBlockHash: raw.ref_block_hash,
    refBlockNumber: '0',
    refBlockTime: raw.timestamp,
    expiration: raw.expiration,
    timestamp: raw.timestamp,
  };
}

/** A prepared withdrawal for the recorded transaction's own intent (what the signer of that transaction meant). */
function preparedFor(tx: Record<string, any>, change: { amount?: bigint; to?: string; memo?: string } = {}): UnsignedWithdrawal {
  const f = fieldsOf(tx);
  const built = assemble(f);
  const payload: TronTxPayload = {
    ...f,
    feeParts: { bandwidth: '0', newAccount: '0', memo: '0', energy: f.feeLimit ?? '0' },
    rawDataHex: Buffer.from(built.bytes).toString('hex'),
    txID: built.txID,
  };
  return {
    intent: {
      chain: 'tron',
      network: 'mainnet',
      asset: f.kind === 'trc20' ? USDT : TRX,
      outputs: [
        { to: change.to ?? f.to, amount: change.amount ?? BigInt(f.amount), ...(change.memo !== undefined ? { memo: change.memo } : {}) },
      ],
      sources: [f.owner],
    },
    payload,
    fee: BigInt(f.feeLimit ?? '0'),
    sourceAddresses: [f.owner],
  };
}

/** The recorded transaction as /wallet/broadcasthex takes it (raw_data + signature). */
const signedHex = (tx: Record<string, any>) =>
  Buffer.from(encodeSignedTransaction(Buffer.from(tx.raw_data_hex, 'hex'), [Buffer.from(tx.signature[0], 'hex')])).toString('hex');

const verbs = createTronWithdrawals();
const refusal = (f: () => unknown): BaseError => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(BaseError);
    return e as BaseError;
  }
  throw new Error('accepted');
};

describe('Tron raw_data encoding, checked against recorded mainnet transactions and tronweb', () => {
  it.each([
    ['block 30864544 TRX', block.data.transactions[0]],
    ['TRX d8b11250', trx.data.transaction],
  ])('%s: the same fields encode to the recorded raw_data_hex, so to the recorded txID', (_name, tx) => {
    const built = assemble(fieldsOf(tx));
    expect(Buffer.from(built.bytes).toString('hex')).toBe(tx.raw_data_hex);
    expect(built.txID).toBe(tx.txID);
  });

  it('USDT 0130dfde (its calldata word carries the 0x41 byte): the same bytes and txID', () => {
    const tx = usdt.data.transaction;
    const built = assemble(fieldsOf(tx), true);
    expect(Buffer.from(built.bytes).toString('hex')).toBe(tx.raw_data_hex);
    expect(built.txID).toBe(tx.txID);
  });

  it('a TRC-20 transfer with a memo and an amount above 2^53 encodes as tronweb encodes the same JSON', () => {
    const f = { ...fieldsOf(usdt.data.transaction), amount: (2n ** 60n + 7n).toString(), memo: 'payout 7' };
    const ours = Buffer.from(assemble(f).bytes).toString('hex');
    const json = {
      visible: false,
      raw_data: {
        contract: [
          {
            parameter: {
              value: {
                owner_address: usdt.data.transaction.raw_data.contract[0].parameter.value.owner_address,
                contract_address: usdt.data.transaction.raw_data.contract[0].parameter.value.contract_address,
                data: `a9059cbb${'0'.repeat(24)}ec20315a879c48f5e3a6a1c9826d5225f8b658b8${(2n ** 60n + 7n).toString(16).padStart(64, '0')}`,
              },
              type_url: 'type.googleapis.com/protocol.TriggerSmartContract',
            },
            type: 'TriggerSmartContract',
          },
        ],
        data: Buffer.from('payout 7').toString('hex'),
        fee_limit: 50000000,
        ref_block_bytes: f.refBlockBytes,
        ref_block_hash: f.refBlockHash,
        expiration: f.expiration,
        timestamp: f.timestamp,
      },
    };
    expect(ours).toBe(utils.transaction.txPbToRawDataHex(utils.transaction.txJsonToPb(json)).toLowerCase());
  });
});

describe('checkSigned on transactions signed by other wallets (recorded mainnet transactions)', () => {
  it.each([
    ['block 30864544 TRX', block.data.transactions[0]],
    ['TRX d8b11250', trx.data.transaction],
    ['USDT 0130dfde', usdt.data.transaction],
  ])('%s: accepted for its own intent, with the recovered signer and the recorded txID', (_name, tx) => {
    const prepared = preparedFor(tx);
    const checked = verbs.checkSigned(prepared, signedHex(tx), prepared);
    expect(checked.signed.txHash).toBe(tx.txID);
    expect((checked.payload as TronTxPayload).rawDataHex).toBe(tx.raw_data_hex);
    expect(checked.expiresAt).toEqual({ time: new Date(tx.raw_data.expiration).toISOString() });
    // tronweb's JSON form of the same transaction is the same transaction.
    const json = JSON.stringify({ txID: tx.txID, raw_data_hex: tx.raw_data_hex, signature: tx.signature });
    expect(verbs.checkSigned(prepared, json, prepared).signed.raw).toBe(checked.signed.raw);
  });

  it('refuses a changed amount, recipient or memo, or a transaction for another asset', () => {
    for (const tx of [trx.data.transaction, usdt.data.transaction]) {
      const raw = signedHex(tx);
      const f = fieldsOf(tx);
      expect(refusal(() => verbs.checkSigned(preparedFor(tx, { amount: BigInt(f.amount) + 1n }), raw)).message).toMatch(
        /moves \d+ base units instead of/,
      );
      expect(refusal(() => verbs.checkSigned(preparedFor(tx, { to: 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH' }), raw)).message).toMatch(
        /pays T\w+ instead of TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH/,
      );
      expect(refusal(() => verbs.checkSigned(preparedFor(tx, { memo: 'invoice 1' }), raw)).message).toMatch(/memo differs/);
    }
    const asToken = preparedFor(trx.data.transaction);
    asToken.intent = { ...asToken.intent, asset: USDT };
    expect(refusal(() => verbs.checkSigned(asToken, signedHex(trx.data.transaction))).message).toMatch(
      /TRX transfer, not the token transfer/,
    );
  });

  it('refuses a signature by anyone but the source, a second signature, a fee_limit over twice the estimate, an expired one', () => {
    const tx = usdt.data.transaction;
    const sig = Buffer.from(tx.signature[0], 'hex');
    sig[5] = (sig[5] as number) ^ 1;
    const forged = Buffer.from(encodeSignedTransaction(Buffer.from(tx.raw_data_hex, 'hex'), [sig])).toString('hex');
    expect(refusal(() => verbs.checkSigned(preparedFor(tx), forged)).message).toMatch(/signed by T\w+, not the source|does not recover/);
    const twice = Buffer.from(
      encodeSignedTransaction(Buffer.from(tx.raw_data_hex, 'hex'), [Buffer.from(tx.signature[0], 'hex'), sig]),
    ).toString('hex');
    expect(refusal(() => verbs.checkSigned(preparedFor(tx), twice)).message).toMatch(/2 signatures/);
    const lowEstimate = preparedFor(tx);
    (lowEstimate.payload as TronTxPayload).feeLimit = '20000000';
    expect(refusal(() => verbs.checkSigned(lowEstimate, signedHex(tx))).message).toMatch(/fee_limit 50000000 sun is more than twice/);
    const later = preparedFor(tx);
    (later.payload as TronTxPayload).refBlockTime = tx.raw_data.expiration + 1;
    expect(refusal(() => verbs.checkSigned(later, signedHex(tx))).message).toMatch(/already expired/);
  });

  it('refuses bytes that are no signed transaction, and a raw_data carrying fields walletd never signs', () => {
    expect(refusal(() => verbs.checkSigned(preparedFor(trx.data.transaction), 'zz')).code).toBe('validation_failed');
    // raw_data field 9 (auths) appended: decoding refuses it before anything else is looked at.
    const raw = Buffer.concat([Buffer.from(trx.data.transaction.raw_data_hex, 'hex'), Buffer.from([0x4a, 0x00])]);
    const signed = Buffer.from(encodeSignedTransaction(raw, [Buffer.from(trx.data.transaction.signature[0], 'hex')])).toString('hex');
    expect(refusal(() => verbs.checkSigned(preparedFor(trx.data.transaction), signed)).message).toMatch(/field 9/);
  });
});

describe('broadcast refusals map to typed errors', () => {
  it.each([
    ['BANDWITH_ERROR', '', 'insufficient_funds'],
    ['CONTRACT_VALIDATE_ERROR', 'Validate TransferContract error, balance is not sufficient.', 'insufficient_funds'],
    ['CONTRACT_VALIDATE_ERROR', 'No contract or not a valid smart contract', 'unprocessable'],
    ['SIGERROR', 'Validate signature error', 'unprocessable'],
    ['TAPOS_ERROR', 'Tapos check error', 'conflict'],
    ['TRANSACTION_EXPIRATION_ERROR', 'Transaction expired', 'conflict'],
    ['SERVER_BUSY', '', 'node_error'],
    ['OTHER_ERROR', 'whatever', 'node_error'],
  ])('%s %s → %s', (code, message, expected) => {
    const e = broadcastRefusal(code, message);
    expect(e).toBeInstanceOf(BaseError);
    expect(e.code).toBe(expected);
    expect(e.message).toContain(code);
  });
});
