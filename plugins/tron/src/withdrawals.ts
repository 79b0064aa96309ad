import { createHash } from 'node:crypto';
import {
  BaseError,
  type BuildContext,
  type CheckedSignedWithdrawal,
  type SignedWithdrawal,
  type UnsignedWithdrawal,
  type VerifyContext,
  type WalletSecret,
  type WithdrawalIntent,
  type WithdrawalVerbs,
  type WithdrawalVerdict,
  fromBaseUnits,
  refusingUnreadableSigned,
} from '@walletd/core';
import { deriveTronKey, formatTronAddress, matchKeyOfKey, tronMatchKey } from './addresses';
import { checkTronIntent } from './checkIntent';
import { TRANSFER_TOPIC } from './detectTransfers';
import { bytesToHex, hexToBytes } from './hex';
import {
  type RawTransaction,
  TRANSFER_CONTRACT,
  TRIGGER_SMART_CONTRACT,
  decodeRawTransaction,
  decodeSignedTransaction,
  decodeTransferContract,
  decodeTriggerSmartContract,
  encodeRawTransaction,
  encodeSignedTransaction,
  encodeTransferContract,
  encodeTriggerSmartContract,
} from './protobuf';
import type { TronReader } from './tronReader';
import { addressWord } from './tronReader';
import { recoverSigner, signHash } from './tronweb';

/**
 * The unsigned Tron transaction a withdrawal carries (JSON-safe: amounts as decimal strings,
 * times in ms). `rawDataHex` is the exact `raw_data` to sign (`txID` = its SHA-256), so a signer
 * elsewhere needs nothing else; the other fields say what it pays, for people and for checks.
 */
export interface TronTxPayload {
  kind: 'trx' | 'trc20';
  /** Base58 source (the owner that signs). */
  owner: string;
  /** Base58 recipient. */
  to: string;
  /** Base units (sun, or the token's). */
  amount: string;
  /** Base58 TRC-20 contract. */
  contract?: string;
  memo?: string;
  /** TaPoS: the reference block (bytes 6–8 of its number, bytes 8–16 of its id). */
  refBlockBytes: string;
  refBlockHash: string;
  refBlockNumber: string;
  /** The reference block's time (ms); the expiration counts from it. */
  refBlockTime: number;
  /** raw_data.expiration (ms): after it, the transaction can never be included. */
  expiration: number;
  timestamp: number;
  /** raw_data.fee_limit (sun): the most the TRC-20 call may burn for energy. */
  feeLimit?: string;
  /** What the fee bound is made of, in sun (bandwidth, a new account, the memo fee, energy). */
  feeParts: { bandwidth: string; newAccount: string; memo: string; energy: string };
  rawDataHex: string;
  txID: string;
}

/** How long a built transaction stays valid: java-tron accepts up to 24 h past the head block. */
export const EXPIRATION_MS = 60 * 60 * 1000;
const MAX_EXPIRATION_MS = 24 * 60 * 60 * 1000;
/** Energy estimate headroom: fee_limit = estimate × 13/10 (capped at the network's maximum). */
const FEE_LIMIT_HEADROOM = [13n, 10n] as const;
/** java-tron charges MAX_RESULT_SIZE_IN_TX bytes of bandwidth per contract on top of the transaction's size. */
const RESULT_BYTES = 64;
const SIGNATURE_BYTES = 65;

const sha256 = (b: Uint8Array): Uint8Array => createHash('sha256').update(b).digest();
const payloadOf = (u: UnsignedWithdrawal): TronTxPayload => u.payload as TronTxPayload;
const addr20 = (address: string): Uint8Array => hexToBytes(`41${tronMatchKey(address)}`);
const trx = (sun: bigint): string => `${fromBaseUnits(sun, 6)} TRX`;

/** transfer(address,uint256): selector a9059cbb, the recipient's 20 bytes as a word, the amount as a word. */
export function transferCalldata(to: string, amount: bigint): Uint8Array {
  return hexToBytes(`a9059cbb${addressWord(to)}${amount.toString(16).padStart(64, '0')}`);
}

/** The recipient and amount of transfer(address,uint256) calldata; the word may carry Tron's 0x41 byte (some wallets write it). */
function readTransferCalldata(data: Uint8Array): { to: string; amount: bigint; canonical: boolean } | null {
  const hex = bytesToHex(data);
  if (hex.length !== 8 + 128 || !hex.startsWith('a9059cbb')) return null;
  const word = hex.slice(8, 72);
  const plain = /^0{24}[0-9a-f]{40}$/.test(word);
  const prefixed = /^0{22}41[0-9a-f]{40}$/.test(word);
  if (!plain && !prefixed) return null;
  return { to: word.slice(24), amount: BigInt(`0x${hex.slice(72)}`), canonical: plain };
}

/** Maps a node's broadcast refusal (`code`, `message`) to an error a caller can act on. */
export function broadcastRefusal(code: string, message: string): BaseError {
  const text = `${code}${message ? `: ${message.slice(0, 200)}` : ''}`;
  const m = message.toLowerCase();
  switch (code) {
    case 'BANDWITH_ERROR':
      return new BaseError('insufficient_funds', `not enough TRX for bandwidth, a new account or the memo fee (${text})`);
    case 'CONTRACT_VALIDATE_ERROR':
      if (m.includes('balance is not sufficient') || m.includes('insufficient'))
        return new BaseError('insufficient_funds', `the source holds too little for this transfer (${text})`);
      return new BaseError('unprocessable', `the node refused the transaction as invalid (${text})`);
    case 'SIGERROR':
      return new BaseError('unprocessable', `the node refused the signature (${text})`);
    case 'TAPOS_ERROR':
      return new BaseError('conflict', `the transaction's reference block is not on the node's chain; prepare it again (${text})`);
    case 'TRANSACTION_EXPIRATION_ERROR':
      return new BaseError('conflict', `the transaction expired before the node took it; prepare it again (${text})`);
    case 'TOO_BIG_TRANSACTION_ERROR':
    case 'CONTRACT_EXE_ERROR':
      return new BaseError('unprocessable', `the node refused the transaction (${text})`);
    default:
      // SERVER_BUSY, NO_CONNECTION, NOT_ENOUGH_EFFECTIVE_CONNECTION, BLOCK_UNSOLIDIFIED, OTHER_ERROR: try again later.
      return new BaseError('node_error', `the node did not take the transaction (${text})`);
  }
}

/** The node's message: UTF-8 text, or its hex (broadcasttransaction with visible=false). */
function nodeMessage(message: unknown): string {
  if (typeof message !== 'string') return '';
  if (message.length > 0 && message.length % 2 === 0 && /^[0-9a-fA-F]+$/.test(message)) {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(message, 'hex'));
    } catch {
      return message;
    }
  }
  return message;
}

interface Built {
  raw: RawTransaction;
  bytes: Uint8Array;
  txID: string;
}

export function assemble(p: Omit<TronTxPayload, 'rawDataHex' | 'txID' | 'feeParts'>, calldataWord41 = false): Built {
  const contract =
    p.kind === 'trx'
      ? encodeTransferContract({ owner: addr20(p.owner), to: addr20(p.to), amount: BigInt(p.amount) })
      : encodeTriggerSmartContract({
          owner: addr20(p.owner),
          contractAddress: addr20(p.contract as string),
          callValue: 0n,
          data: calldataWord41
            ? hexToBytes(`a9059cbb${`41${tronMatchKey(p.to)}`.padStart(64, '0')}${BigInt(p.amount).toString(16).padStart(64, '0')}`)
            : transferCalldata(p.to, BigInt(p.amount)),
          callTokenValue: 0n,
          tokenId: 0n,
        });
  const raw: RawTransaction = {
    refBlockBytes: hexToBytes(p.refBlockBytes),
    refBlockHash: hexToBytes(p.refBlockHash),
    expiration: BigInt(p.expiration),
    timestamp: BigInt(p.timestamp),
    data: p.memo !== undefined ? new TextEncoder().encode(p.memo) : new Uint8Array(0),
    feeLimit: p.feeLimit !== undefined ? BigInt(p.feeLimit) : 0n,
    contractType: p.kind === 'trx' ? TRANSFER_CONTRACT : TRIGGER_SMART_CONTRACT,
    contract,
  };
  const bytes = encodeRawTransaction(raw);
  return { raw, bytes, txID: bytesToHex(sha256(bytes)) };
}

/** Bandwidth a signed transaction of `rawLength` bytes consumes (java-tron: serialized size + 64 per contract). */
export function bandwidthBytes(rawLength: number): bigint {
  const lengthVarint = rawLength < 128 ? 1 : rawLength < 16384 ? 2 : 3;
  return BigInt(1 + lengthVarint + rawLength + 1 + 1 + SIGNATURE_BYTES + RESULT_BYTES);
}

/** What a signed transaction is, read from its own bytes only (never from JSON beside them). */
interface Described {
  txID: string;
  raw: RawTransaction;
  rawBytes: Uint8Array;
  signer: string;
  kind: 'trx' | 'trc20';
  owner: string;
  to: string;
  amount: bigint;
  contract?: string;
  memo: Uint8Array;
  canonical: boolean;
  signed: Uint8Array;
}

function refuse(what: string): never {
  throw new BaseError('unprocessable', `the signed transaction does not pay the prepared withdrawal: ${what}`);
}

/** A signed transaction as hex protobuf (`/wallet/broadcasthex`), or tronweb's JSON (`raw_data_hex` and `signature`). */
function parseSigned(raw: string): { rawBytes: Uint8Array; signatures: Uint8Array[] } {
  const text = raw.trim();
  try {
    if (text.startsWith('{')) {
      const json = JSON.parse(text) as { raw_data_hex?: unknown; signature?: unknown };
      if (typeof json.raw_data_hex !== 'string' || !Array.isArray(json.signature)) throw new Error('no raw_data_hex/signature');
      return { rawBytes: hexToBytes(json.raw_data_hex), signatures: json.signature.map((s) => hexToBytes(String(s))) };
    }
    const { raw: rawBytes, signatures } = decodeSignedTransaction(hexToBytes(text));
    return { rawBytes, signatures };
  } catch (e) {
    throw new BaseError(
      'validation_failed',
      `signedTransaction is not a signed Tron transaction (hex of the Transaction protobuf, or tronweb's JSON): ${(e as Error).message}`,
    );
  }
}

function describe(rawSigned: string): Described {
  const { rawBytes, signatures } = parseSigned(rawSigned);
  if (signatures.length !== 1) refuse(`it carries ${signatures.length} signatures; walletd addresses sign alone`);
  const signature = signatures[0] as Uint8Array;
  if (signature.length !== SIGNATURE_BYTES) refuse('its signature is not 65 bytes');
  let raw: RawTransaction;
  try {
    raw = decodeRawTransaction(rawBytes);
  } catch (e) {
    refuse((e as Error).message);
  }
  const txID = bytesToHex(sha256(rawBytes));
  let signer: string;
  try {
    signer = recoverSigner(txID, bytesToHex(signature)).slice(2);
  } catch {
    refuse('its signature does not recover to any address');
  }
  const hexOf = (b: Uint8Array) => {
    const h = bytesToHex(b);
    if (!/^41[0-9a-f]{40}$/.test(h)) refuse('an address in it is not a Tron address');
    return h.slice(2);
  };
  const signed = encodeSignedTransaction(rawBytes, [signature]);
  if (raw.contractType === TRANSFER_CONTRACT) {
    const c = decodeTransferContract(raw.contract);
    const canonical = bytesToHex(encodeTransferContract(c)) === bytesToHex(raw.contract);
    return {
      txID,
      raw,
      rawBytes,
      signer,
      kind: 'trx',
      owner: hexOf(c.owner),
      to: hexOf(c.to),
      amount: c.amount,
      memo: raw.data,
      canonical,
      signed,
    };
  }
  const c = decodeTriggerSmartContract(raw.contract);
  if (c.callValue !== 0n || c.callTokenValue !== 0n || c.tokenId !== 0n) refuse('the token call also moves TRX or a TRC-10 asset');
  const call = readTransferCalldata(c.data);
  if (!call) refuse('its call is not transfer(address,uint256)');
  const canonical = bytesToHex(encodeTriggerSmartContract(c)) === bytesToHex(raw.contract);
  return {
    txID,
    raw,
    rawBytes,
    signer,
    kind: 'trc20',
    owner: hexOf(c.owner),
    to: call.to,
    amount: call.amount,
    contract: hexOf(c.contractAddress),
    memo: raw.data,
    canonical,
    signed,
  };
}

/** The fee bound and its parts, for a transaction of `rawLength` bytes. */
async function feeBound(
  reader: TronReader,
  p: { owner: string; to: string; kind: 'trx' | 'trc20'; memo?: string },
  rawLength: number,
  feeLimit: bigint,
): Promise<{ fee: bigint; parts: TronTxPayload['feeParts'] }> {
  const [params, resource, recipient] = await Promise.all([
    reader.chainParameters(),
    reader.accountResource(p.owner),
    p.kind === 'trx' ? reader.account(p.to) : Promise.resolve({ exists: true, balance: 0n }),
  ]);
  const bytes = bandwidthBytes(rawLength);
  const perByte = params.get('getTransactionFee') ?? 0n;
  const staked = resource.netLimit - resource.netUsed;
  const free = resource.freeNetLimit - resource.freeNetUsed;
  let bandwidth = 0n;
  let newAccount = 0n;
  if (!recipient.exists) {
    // Creating the recipient: staked bandwidth covers the creation, or getCreateAccountFee is burned;
    // getCreateNewAccountFeeInSystemContract is charged on top (free bandwidth never pays for it).
    newAccount =
      (staked >= bytes ? 0n : (params.get('getCreateAccountFee') ?? 0n)) + (params.get('getCreateNewAccountFeeInSystemContract') ?? 0n);
  } else if (staked < bytes && free < bytes) {
    bandwidth = bytes * perByte;
  }
  const memo = p.memo !== undefined ? (params.get('getMemoFee') ?? 0n) : 0n;
  const parts = { bandwidth: bandwidth.toString(), newAccount: newAccount.toString(), memo: memo.toString(), energy: feeLimit.toString() };
  return { fee: bandwidth + newAccount + memo + feeLimit, parts };
}

/** fee_limit for a TRC-20 transfer: the node's energy estimate (a constant call of the same transfer) at the energy price, with headroom. */
async function energyFeeLimit(reader: TronReader, owner: string, contract: string, to: string, amount: bigint): Promise<bigint> {
  const r = await reader.http.post<{
    result?: { result?: boolean; message?: string };
    energy_used?: unknown;
    energy_penalty?: unknown;
    constant_result?: string[];
    transaction?: { ret?: { ret?: string }[] };
  }>('/wallet/triggerconstantcontract', {
    owner_address: `41${tronMatchKey(owner)}`,
    contract_address: `41${tronMatchKey(contract)}`,
    function_selector: 'transfer(address,uint256)',
    parameter: bytesToHex(transferCalldata(to, amount)).slice(8),
    visible: false,
  });
  // java-tron reports a revert as result false (CONTRACT_EXE_ERROR), some versions as ret FAILED.
  if (r.result?.result !== true || r.transaction?.ret?.[0]?.ret === 'FAILED') {
    const message = nodeMessage(r.result?.message);
    throw new BaseError('unprocessable', `the token transfer would fail on chain: ${message || 'the call reverts'}`);
  }
  const energy = BigInt(Number(r.energy_used ?? 0)) + BigInt(Number(r.energy_penalty ?? 0));
  const params = await reader.chainParameters();
  const price = params.get('getEnergyFee') ?? 0n;
  const max = params.get('getMaxFeeLimit') ?? 15_000_000_000n;
  let limit = (energy * price * FEE_LIMIT_HEADROOM[0] + FEE_LIMIT_HEADROOM[1] - 1n) / FEE_LIMIT_HEADROOM[1];
  if (limit === 0n) limit = 1n;
  return limit > max ? max : limit;
}

/** A timestamp no in-flight withdrawal from the same source used: two equal intents never share a txID. */
function freshTimestamp(owner: string, context?: BuildContext): number {
  let t = Date.now();
  for (const w of context?.inFlight ?? []) {
    const p = w.payload as Partial<TronTxPayload>;
    if (p.owner === owner && typeof p.timestamp === 'number' && p.timestamp >= t) t = p.timestamp + 1;
  }
  return t;
}

/**
 * One recipient per transaction, from the first of `sources` (Tron has no nonce: what keeps two
 * withdrawals apart is their content and timestamp). `build` makes the whole raw_data here from the
 * intent (never from a node-built transaction), referencing the head block and expiring
 * `EXPIRATION_MS` after it. Token withdrawals need TRX for energy at the paying address: walletd
 * does not move TRX there itself; it refuses with 422 `insufficient_funds` naming the address and
 * the shortfall.
 */
export function createTronWithdrawals(): WithdrawalVerbs<TronReader> {
  async function build(intent: WithdrawalIntent, reader: TronReader, context?: BuildContext): Promise<UnsignedWithdrawal> {
    const [output] = intent.outputs;
    const source = intent.sources[0];
    if (!source) throw new BaseError('validation_failed', 'a source address is required');
    checkTronIntent(intent);
    if (!output) throw new BaseError('validation_failed', 'a Tron withdrawal pays exactly one recipient');
    const owner = formatTronAddress(source);
    const to = formatTronAddress(output.to);
    const token = intent.asset.contractAddress;
    const kind: TronTxPayload['kind'] = token ? 'trc20' : 'trx';

    const [now, balance, tokenBalance] = await Promise.all([
      reader.nowBlock(),
      reader.account(owner),
      token ? reader.trc20Balance(owner, token) : Promise.resolve(0n),
    ]);
    // First, so a token amount above the balance reads as that, not as a failed energy estimate.
    if (token && tokenBalance < output.amount)
      throw new BaseError(
        'insufficient_funds',
        `${owner} holds ${fromBaseUnits(tokenBalance, intent.asset.decimals)} ${intent.asset.symbol}, less than the ${fromBaseUnits(output.amount, intent.asset.decimals)} to send`,
      );
    // The energy estimate simulates the transfer from the source: an account that never held TRX cannot send it.
    if (token && !balance.exists)
      throw new BaseError(
        'insufficient_funds',
        `${owner} holds no TRX (the account is not activated); a TRC-20 transfer burns TRX for energy and bandwidth: send TRX to it first`,
      );
    const feeLimit = token ? await energyFeeLimit(reader, owner, token, to, output.amount) : 0n;
    const fields = {
      kind,
      owner,
      to,
      amount: output.amount.toString(),
      ...(token ? { contract: formatTronAddress(token) } : {}),
      ...(output.memo !== undefined ? { memo: output.memo } : {}),
      refBlockBytes: (now.number & 0xffffn).toString(16).padStart(4, '0'),
      refBlockHash: now.blockID.slice(16, 32),
      refBlockNumber: now.number.toString(),
      refBlockTime: now.timestamp,
      expiration: now.timestamp + EXPIRATION_MS,
      timestamp: freshTimestamp(owner, context),
      ...(token ? { feeLimit: feeLimit.toString() } : {}),
    };
    const built = assemble(fields);
    const { fee, parts } = await feeBound(
      reader,
      { owner, to, kind, ...(output.memo !== undefined ? { memo: output.memo } : {}) },
      built.bytes.length,
      feeLimit,
    );
    // Refused before anything is signed: the node checks only at broadcast, and a failed TRC-20 call still burns its energy.
    const needed = (kind === 'trx' ? output.amount : 0n) + fee;
    if (balance.balance < needed) {
      throw new BaseError(
        'insufficient_funds',
        kind === 'trx'
          ? `${owner} holds ${trx(balance.balance)}; the amount plus the fee bound is ${trx(needed)} (short by ${trx(needed - balance.balance)})`
          : `${owner} needs up to ${trx(fee)} for energy and bandwidth and holds ${trx(balance.balance)} (short by ${trx(needed - balance.balance)}); send TRX to it first`,
      );
    }
    const payload: TronTxPayload = { ...fields, feeParts: parts, rawDataHex: bytesToHex(built.bytes), txID: built.txID };
    return { intent, payload, fee, sourceAddresses: [owner], expiresAt: { time: new Date(fields.expiration).toISOString() } };
  }

  /** The payload's raw_data pays its own intent (a stored payload is re-read, never trusted). */
  function checkPayload(unsigned: UnsignedWithdrawal): TronTxPayload {
    const p = payloadOf(unsigned);
    const built = assemble(p);
    if (bytesToHex(built.bytes) !== p.rawDataHex || built.txID !== p.txID)
      throw new BaseError('internal', 'the stored transaction does not match its own fields');
    const [output] = unsigned.intent.outputs;
    const token = unsigned.intent.asset.contractAddress;
    if (
      !output ||
      tronMatchKey(p.to) !== tronMatchKey(output.to) ||
      BigInt(p.amount) !== output.amount ||
      (p.memo ?? null) !== (output.memo ?? null) ||
      (token ? p.kind !== 'trc20' || tronMatchKey(p.contract as string) !== tronMatchKey(token) : p.kind !== 'trx')
    )
      throw new BaseError('internal', 'the stored transaction does not pay its intent');
    return p;
  }

  return refusingUnreadableSigned('Tron transaction', {
    checkIntent: checkTronIntent,
    build,

    async sign(unsigned: UnsignedWithdrawal, secret: WalletSecret, derivationIndexes: number[]): Promise<SignedWithdrawal> {
      const p = checkPayload(unsigned);
      const index = derivationIndexes[0];
      if (index === undefined) throw new BaseError('internal', 'a derivation index is required to sign');
      const seed = secret.seed();
      let key: Uint8Array;
      try {
        key = deriveTronKey(seed, index);
      } finally {
        seed.fill(0);
      }
      try {
        if (matchKeyOfKey(key) !== tronMatchKey(p.owner))
          throw new BaseError('internal', 'the derived key does not control the source address');
        const signature = hexToBytes(signHash(hexToBytes(p.txID), key));
        return { raw: bytesToHex(encodeSignedTransaction(hexToBytes(p.rawDataHex), [signature])), txHash: p.txID };
      } finally {
        key.fill(0);
      }
    },

    /**
     * A transaction signed elsewhere pays the intent only if its own bytes say so: one TRX transfer
     * (or one TRC-20 `transfer` on the intent's contract, moving no TRX or TRC-10 with it) from the
     * source, signed by the source's key, to the recipient, for the exact amount, with the exact
     * memo (or none), encoded canonically with no other field, not yet expired. The signer chooses
     * the reference block, expiration and timestamp; a fee_limit at most twice the fresh estimate.
     */
    checkSigned(prepared: UnsignedWithdrawal, raw: string, fresh?: UnsignedWithdrawal): CheckedSignedWithdrawal {
      const unsigned = fresh ?? prepared;
      const p = payloadOf(unsigned);
      const d = describe(raw);
      const [output] = unsigned.intent.outputs;
      if (!output) refuse('the prepared withdrawal has no recipient');
      const source = tronMatchKey(unsigned.sourceAddresses[0] ?? '');
      const token = unsigned.intent.asset.contractAddress;
      if (token && d.kind !== 'trc20') refuse('it is a TRX transfer, not the token transfer');
      if (!token && d.kind !== 'trx') refuse('it is a contract call, not a TRX transfer');
      if (token && d.contract !== tronMatchKey(token))
        refuse(`it calls ${formatTronAddress(d.contract as string)} instead of ${formatTronAddress(token)}`);
      if (d.owner !== source) refuse(`it spends from ${formatTronAddress(d.owner)}, not the source ${formatTronAddress(source)}`);
      if (d.signer !== source) refuse(`it is signed by ${formatTronAddress(d.signer)}, not the source ${formatTronAddress(source)}`);
      if (d.to !== tronMatchKey(output.to)) refuse(`it pays ${formatTronAddress(d.to)} instead of ${formatTronAddress(output.to)}`);
      if (d.amount !== output.amount) refuse(`it moves ${d.amount} base units instead of ${output.amount}`);
      const memo = output.memo !== undefined ? bytesToHex(new TextEncoder().encode(output.memo)) : '';
      if (bytesToHex(d.memo) !== memo)
        refuse(output.memo === undefined ? 'it carries a memo the withdrawal does not have' : 'its memo differs');
      if (!d.canonical) refuse('its contract is not canonically encoded');
      const expiration = Number(d.raw.expiration);
      if (expiration <= p.refBlockTime) refuse('it has already expired');
      if (expiration > p.refBlockTime + MAX_EXPIRATION_MS) refuse('its expiration is more than 24 hours ahead; the node would refuse it');
      const freshLimit = BigInt(p.feeLimit ?? '0');
      if (d.kind === 'trc20') {
        if (d.raw.feeLimit <= 0n) refuse('it has no fee_limit');
        if (d.raw.feeLimit > freshLimit * 2n) refuse(`its fee_limit ${d.raw.feeLimit} sun is more than twice the estimate ${freshLimit}`);
      } else if (d.raw.feeLimit !== 0n) refuse('a TRX transfer carries no fee_limit');
      const refNumber = BigInt(`0x${bytesToHex(d.raw.refBlockBytes) || '0'}`);
      const payload: TronTxPayload = {
        ...p,
        refBlockBytes: bytesToHex(d.raw.refBlockBytes),
        refBlockHash: bytesToHex(d.raw.refBlockHash),
        refBlockNumber: refNumber.toString(),
        expiration,
        timestamp: Number(d.raw.timestamp),
        ...(d.kind === 'trc20' ? { feeLimit: d.raw.feeLimit.toString() } : {}),
        rawDataHex: bytesToHex(d.rawBytes),
        txID: d.txID,
      };
      // The same fields encode to the same bytes: nothing else is hidden in them.
      const wordWith41 = d.kind === 'trc20' && !readTransferCalldata(decodeTriggerSmartContract(d.raw.contract).data)?.canonical;
      if (bytesToHex(assemble(payload, wordWith41).bytes) !== payload.rawDataHex) refuse('its raw_data is not canonically encoded');
      const fee = unsigned.fee - freshLimit + d.raw.feeLimit;
      return {
        signed: { raw: bytesToHex(d.signed), txHash: d.txID },
        payload: { ...payload, feeParts: { ...p.feeParts, energy: d.raw.feeLimit.toString() } },
        fee,
        expiresAt: { time: new Date(expiration).toISOString() },
      };
    },

    async broadcast(signed: SignedWithdrawal, reader: TronReader): Promise<void> {
      const r = await reader.http.send<{ result?: boolean; code?: string; message?: string; txid?: string }>('/wallet/broadcasthex', {
        transaction: signed.raw,
      });
      if (r.result === true) {
        if (typeof r.txid === 'string' && r.txid.toLowerCase() !== signed.txHash.toLowerCase())
          throw new BaseError('node_error', 'the node reported another transaction id');
        return;
      }
      // Sending bytes the node already has (a retry after a crash) is not a refusal.
      if (r.code === 'DUP_TRANSACTION_ERROR') return;
      throw broadcastRefusal(r.code ?? 'OTHER_ERROR', nodeMessage(r.message));
    },

    /**
     * Paid only when included and successful: a TRX transfer whose `contractRet` is SUCCESS, a TRC-20
     * call whose receipt result is SUCCESS and that emitted the matching Transfer log (the
     * intent's contract, from the source, to the recipient, the exact amount; without it the
     * withdrawal stays pending). Reverted, out of energy or any other failure: `failed_on_chain`,
     * with the fee it burned. Not in a block and not in the node's pool: `expired` once the
     * solidified block is past its expiration (a final view), else `missing` (sent again). The
     * fee is TransactionInfo.fee: every sun burned (energy, bandwidth, account creation, memo).
     */
    async verify(unsigned: UnsignedWithdrawal, txHash: string, reader: TronReader, context?: VerifyContext): Promise<WithdrawalVerdict> {
      const info = await reader.http.post<{
        id?: string;
        blockNumber?: unknown;
        fee?: unknown;
        result?: string;
        receipt?: { result?: string; energy_fee?: unknown; net_fee?: unknown };
        log?: { address?: string; topics?: string[]; data?: string }[];
      }>('/wallet/gettransactioninfobyid', { value: txHash });
      if (info.id !== undefined && info.blockNumber !== undefined) {
        const blockNumber = BigInt(info.blockNumber as number | string);
        const fee =
          info.fee !== undefined
            ? BigInt(info.fee as number | string)
            : BigInt((info.receipt?.energy_fee as number) ?? 0) + BigInt((info.receipt?.net_fee as number) ?? 0);
        const p = payloadOf(unsigned);
        const failed = { status: 'rejected' as const, confirmations: 0, fee, blockNumber, reason: 'failed_on_chain' as const };
        if (info.result === 'FAILED') return failed;
        if (p.kind === 'trc20') {
          if (info.receipt?.result !== 'SUCCESS') return failed;
          const contract = tronMatchKey(p.contract as string);
          const from = tronMatchKey(p.owner).padStart(64, '0');
          const to = tronMatchKey(p.to).padStart(64, '0');
          const paid = (info.log ?? []).some(
            (l) =>
              l.address?.toLowerCase() === contract &&
              l.topics?.length === 3 &&
              l.topics[0]?.toLowerCase() === TRANSFER_TOPIC &&
              l.topics[1]?.toLowerCase() === from &&
              l.topics[2]?.toLowerCase() === to &&
              typeof l.data === 'string' &&
              /^[0-9a-fA-F]{64}$/.test(l.data) &&
              BigInt(`0x${l.data}`) === BigInt(p.amount),
          );
          if (!paid) return { status: 'pending', confirmations: 0, blockNumber };
        } else {
          const tx = await reader.http.post<{ txID?: string; ret?: { contractRet?: string }[] }>('/wallet/gettransactionbyid', {
            value: txHash,
          });
          if (tx.txID === undefined) return { status: 'pending', confirmations: 0, blockNumber };
          if (tx.ret?.[0]?.contractRet !== 'SUCCESS') return failed;
        }
        const head = await reader.head();
        return { status: 'confirmed', confirmations: Number(head - blockNumber + 1n), fee, blockNumber };
      }
      // Not in a block: in the node's pool, or gone (expired for good, or still able to land).
      const pending = await reader.http
        .post<{ txID?: string }>('/wallet/gettransactionfrompending', { value: txHash })
        .catch(() => ({}) as { txID?: string });
      if (pending.txID !== undefined) return { status: 'pending', confirmations: 0 };
      const expiration = payloadOf(unsigned).expiration;
      const solid = await reader.solidBlock();
      if (solid.timestamp > expiration) return { status: 'rejected', confirmations: 0, reason: context?.seenInBlock ? 'reorg' : 'expired' };
      return { status: 'missing', confirmations: 0 };
    },
  });
}
