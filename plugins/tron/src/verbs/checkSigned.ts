import { BaseError, type CheckedSignedWithdrawal, type UnsignedWithdrawal } from '@walletd/plugin-kit';
import { formatTronAddress, tronMatchKey } from '../addresses';
import { bytesToHex, hexToBytes } from '../hex';
import { MAX_EXPIRATION_MS, SIGNATURE_BYTES, type TronTxPayload, assemble, payloadOf, sha256 } from '../payload';
import {
  type RawTransaction,
  TRANSFER_CONTRACT,
  decodeRawTransaction,
  decodeSignedTransaction,
  decodeTransferContract,
  decodeTriggerSmartContract,
  encodeSignedTransaction,
  encodeTransferContract,
  encodeTriggerSmartContract,
} from '../protobuf';
import { recoverSigner } from '../tronweb';

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
      if (typeof json.raw_data_hex !== 'string' || !Array.isArray(json.signature))
        throw new BaseError('encoding_invalid', 'no raw_data_hex/signature');
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

/**
 * A transaction signed elsewhere pays the intent only if its own bytes say so: one TRX transfer
 * (or one TRC-20 `transfer` on the intent's contract, moving no TRX or TRC-10 with it) from the
 * source, signed by the source's key, to the recipient, for the exact amount, with the exact
 * memo (or none), encoded canonically with no other field, not yet expired. The signer chooses
 * the reference block, expiration and timestamp; a fee_limit at most twice the fresh estimate.
 */
export function checkSignedTronWithdrawal(prepared: UnsignedWithdrawal, raw: string, fresh?: UnsignedWithdrawal): CheckedSignedWithdrawal {
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
}
