import { createHash } from 'node:crypto';
import type { UnsignedWithdrawal } from '@walletd/plugin-kit';
import { tronMatchKey } from './addresses';
import { bytesToHex, hexToBytes } from './hex';
import {
  type RawTransaction,
  TRANSFER_CONTRACT,
  TRIGGER_SMART_CONTRACT,
  encodeRawTransaction,
  encodeTransferContract,
  encodeTriggerSmartContract,
} from './protobuf';
import { addressWord } from './reader';

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
export const MAX_EXPIRATION_MS = 24 * 60 * 60 * 1000;
export const SIGNATURE_BYTES = 65;

export const sha256 = (b: Uint8Array): Uint8Array => createHash('sha256').update(b).digest();
export const payloadOf = (u: UnsignedWithdrawal): TronTxPayload => u.payload as TronTxPayload;
const addr20 = (address: string): Uint8Array => hexToBytes(`41${tronMatchKey(address)}`);

/** transfer(address,uint256): selector a9059cbb, the recipient's 20 bytes as a word, the amount as a word. */
export function transferCalldata(to: string, amount: bigint): Uint8Array {
  return hexToBytes(`a9059cbb${addressWord(to)}${amount.toString(16).padStart(64, '0')}`);
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
