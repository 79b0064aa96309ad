import type { EventRecord } from '@polkadot/types/interfaces';
import type { Vec } from '@polkadot/types';
import { hexToU8a, u8aConcat, u8aEq, u8aToHex } from '@polkadot/util';
import { blake2AsHex, blake2AsU8a, encodeAddress, sr25519Sign, sr25519Verify } from '@polkadot/util-crypto';
import {
  BaseError,
  type BuildContext,
  type CheckedSignedWithdrawal,
  NodeCallError,
  type SignedWithdrawal,
  type UnsignedWithdrawal,
  type VerifyContext,
  type WalletSecret,
  type WithdrawalIntent,
  type WithdrawalVerbs,
  type WithdrawalVerdict,
  refusingUnreadableSigned,
} from '@walletd/core';
import { accountIdOf, isAssetId, polkadotKeyPair } from './addresses';
import { arg } from './eventArgs';
import { signedParts } from './extrinsicBytes';
import { nodeRefusal } from './nodeRefusal';
import { prepareTransfer } from './prepareTransfer';
import type { PolkadotReader } from './polkadotReader';

/**
 * What `build` prepares and `sign` completes, JSON-serialisable. `template` is the whole signed
 * extrinsic with a placeholder sr25519 signature at `signatureOffset`; `signingPayload` is what the key
 * signs (the SCALE `ExtrinsicPayload`: call, extra and the implicit spec version, transaction
 * version, genesis and era checkpoint). Signing fills the signature in; nothing else changes.
 */
export interface PolkadotPayload {
  kind: 'native' | 'asset';
  assetId: number | null;
  source: string;
  /** The source's account id (hex). */
  signer: string;
  dest: string;
  amount: string;
  call: string;
  nonce: number;
  /** Block the era counts from (finalized when built) and the last block that can include it. */
  checkpoint: { number: string; hash: string };
  lastValidBlock: string;
  specVersion: number;
  transactionVersion: number;
  genesisHash: string;
  metadataKey: string;
  template: string;
  signatureOffset: number;
  signingPayload: string;
}

/** `Math.max` for bigint. */
const maxBig = (a: bigint, b: bigint): bigint => (a > b ? a : b);

/** A SCALE u32 (little-endian whatever the host). */
function u32le(n: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, n, true);
  return out;
}

const payloadOf = (u: UnsignedWithdrawal): PolkadotPayload => u.payload as PolkadotPayload;

/** sr25519 signs the payload itself, or its blake2-256 when longer than 256 bytes (as the runtime checks it). */
const toSign = (payload: Uint8Array): Uint8Array => (payload.length > 256 ? blake2AsU8a(payload, 256) : payload);

/** sr25519 verification; bytes that are no valid signature at all (not a curve point) verify nothing. */
function verifies(message: Uint8Array, signature: Uint8Array, publicKey: Uint8Array): boolean {
  try {
    return sr25519Verify(message, signature, publicKey);
  } catch {
    return false;
  }
}

const nodeMessage = (e: unknown): string => (e as Error).message;

const unknownOutcome = (n: bigint) =>
  new BaseError(
    'node_error',
    `the node has no events for block ${n}, which includes the withdrawal (state pruned?): its outcome is unknown; verify with an archive node`,
  );

/** The events of extrinsic `index` in a block, as decoded records. */
function eventsOf(records: Vec<EventRecord>, index: number): EventRecord[] {
  return records.filter((r) => r.phase.isApplyExtrinsic && r.phase.asApplyExtrinsic.toNumber() === index);
}

/**
 * The exact fee the signer paid: `TransactionPayment.TransactionFeePaid` (actual fee + tip) where
 * the runtime emits it, else `AssetTxPayment.AssetTxFeePaid` in the native asset, else (older
 * runtimes without either) what `Balances.Withdraw` took from the signer minus the refund
 * `Balances.Deposit` returned to it within the extrinsic.
 */
export function feeFromEvents(events: EventRecord[], signer: string): bigint {
  const who = (v: { toU8a(): Uint8Array }) => u8aToHex(v.toU8a()) === signer;
  for (const r of events) {
    const { section, method, data } = r.event;
    if (section === 'transactionPayment' && method === 'TransactionFeePaid' && who(arg(data, 0) as never))
      return BigInt(arg(data, 1).toString()) + BigInt(arg(data, 2).toString());
    if (
      section === 'assetTxPayment' &&
      method === 'AssetTxFeePaid' &&
      who(arg(data, 0) as never) &&
      // Paid in the native asset: no fee asset (`asset_id` None).
      (arg(data, 3) as unknown as { isNone?: boolean }).isNone === true
    )
      return BigInt(arg(data, 1).toString()) + BigInt(arg(data, 2).toString());
  }
  let fee = 0n;
  for (const r of events) {
    const { section, method, data } = r.event;
    if (section !== 'balances' || !who(arg(data, 0) as never)) continue;
    if (method === 'Withdraw') fee += BigInt(arg(data, 1).toString());
    if (method === 'Deposit') fee -= BigInt(arg(data, 1).toString());
  }
  return fee;
}

/** The transfer event of the intent within the extrinsic's events, exactly. */
function paysIntent(events: EventRecord[], p: PolkadotPayload): boolean {
  const destKey = u8aToHex(accountIdOf(p.dest) as Uint8Array);
  return events.some((r) => {
    const { section, method, data } = r.event;
    if (p.kind === 'native' && section === 'balances' && method === 'Transfer')
      return (
        u8aToHex(arg(data, 0).toU8a()) === p.signer && u8aToHex(arg(data, 1).toU8a()) === destKey && arg(data, 2).toString() === p.amount
      );
    if (p.kind === 'asset' && section === 'assets' && method === 'Transferred')
      return (
        arg(data, 0).toString() === String(p.assetId) &&
        u8aToHex(arg(data, 1).toU8a()) === p.signer &&
        u8aToHex(arg(data, 2).toU8a()) === destKey &&
        arg(data, 3).toString() === p.amount
      );
    return false;
  });
}

/**
 * Withdrawals of DOT (`balances.transferKeepAlive`: the source is never reaped, its existential
 * deposit stays out of what is spendable) and of allow-listed assets (`assets.transferKeepAlive`),
 * signed with sr25519 at the source's `//index`. Valid for a mortal era of `ERA_PERIOD` blocks
 * counted from the finalized head; the nonce follows the wallet's in-flight withdrawals from the
 * same source; the fee bound is twice `TransactionPaymentApi_query_info`'s partial fee (the fee
 * multiplier moves between blocks), the exact fee comes from the block's events on `verify`.
 */
export function createPolkadotWithdrawals(): WithdrawalVerbs<PolkadotReader> {
  return refusingUnreadableSigned('Polkadot extrinsic', {
    async build(intent: WithdrawalIntent, reader: PolkadotReader, context?: BuildContext): Promise<UnsignedWithdrawal> {
      const output = intent.outputs[0];
      if (!output || intent.outputs.length !== 1)
        throw new BaseError('validation_failed', 'a Polkadot withdrawal pays exactly one recipient');
      if (output.amount <= 0n) throw new BaseError('invalid_amount', 'the amount must be positive');
      const source = intent.sources[0] as string;
      const signer = accountIdOf(source);
      const dest = accountIdOf(output.to);
      if (!signer) throw new BaseError('invalid_address', `"${source}" is not a valid Polkadot address`);
      if (!dest) throw new BaseError('invalid_address', `"${output.to}" is not a valid Polkadot address`);
      const contract = intent.asset.contractAddress;
      if (contract !== null && !isAssetId(contract)) throw new BaseError('unknown_asset', `"${contract}" is not an asset id`);
      const assetId = contract === null ? null : Number(contract);

      const checkpoint = await reader.finalizedHeader();
      const runtime = await reader.runtimeAt(checkpoint.hash);
      const { registry } = runtime;
      const genesisHash = await reader.genesisHash();
      const ed = await reader.existentialDeposit();
      const from = await reader.account(signer);
      const to = await reader.account(dest);

      if (assetId === null) {
        if (!to.exists && output.amount < ed)
          throw new BaseError(
            'unprocessable',
            `the recipient account does not exist and ${output.amount} is below the existential deposit (${ed}): the runtime would refuse it`,
          );
      } else {
        const details = await reader.assetDetails(assetId);
        if (details === null) throw new BaseError('unknown_asset', `asset ${assetId} does not exist on this network`);
        const held = await reader.assetBalance(assetId, dest);
        if (held === 0n && output.amount < details.minBalance)
          throw new BaseError(
            'unprocessable',
            `the recipient holds no asset ${assetId} and ${output.amount} is below its minimum balance (${details.minBalance})`,
          );
        // A non-sufficient asset cannot be the only thing keeping an account alive.
        if (held === 0n && !details.isSufficient && !to.exists)
          throw new BaseError(
            'unprocessable',
            `the recipient account does not exist and asset ${assetId} cannot create it: send it DOT first`,
          );
      }

      // The next nonce after the wallet's own signed, not yet final withdrawals from this source.
      let nonce = from.nonce;
      for (const u of context?.inFlight ?? []) {
        const p = u.payload as Partial<PolkadotPayload>;
        if (p.signer === u8aToHex(signer) && typeof p.nonce === 'number' && p.nonce >= nonce) nonce = p.nonce + 1;
      }

      const prepared = prepareTransfer(registry, {
        assetId,
        signer,
        dest,
        amount: output.amount,
        nonce,
        checkpoint,
        specVersion: runtime.specVersion,
        transactionVersion: runtime.transactionVersion,
        genesisHash,
      });
      const { template } = prepared;

      const info = await reader.call<string>('state_call', [
        'TransactionPaymentApi_query_info',
        u8aToHex(u8aConcat(template, u32le(template.length))),
      ]);
      // RuntimeDispatchInfo { weight, class, partial_fee: u128 }: the fee is the last 16 bytes (LE)
      // whatever the weight's encoding (u64 before TransactionPaymentApi v2, Weight v2 after).
      const infoBytes = hexToU8a(info);
      let partialFee = 0n;
      for (let i = infoBytes.length - 1; i >= infoBytes.length - 16; i--) partialFee = (partialFee << 8n) | BigInt(infoBytes[i] as number);
      const fee = partialFee * 2n;

      const keep = maxBig(from.frozen, ed);
      const spendable = from.free > keep ? from.free - keep : 0n;
      if (assetId === null) {
        if (spendable < output.amount + fee)
          throw new BaseError(
            'insufficient_funds',
            `insufficient funds: ${spendable} spendable, ${output.amount + fee} needed with the fee`,
          );
      } else {
        if (spendable < fee)
          throw new BaseError('insufficient_funds', `insufficient funds for the fee: ${spendable} spendable, ${fee} needed`);
        const held = await reader.assetBalance(assetId, signer);
        if (held < output.amount)
          throw new BaseError('insufficient_funds', `insufficient funds: ${held} of asset ${assetId} held, ${output.amount} needed`);
      }

      const { lastValidBlock } = prepared;
      const payload: PolkadotPayload = {
        kind: assetId === null ? 'native' : 'asset',
        assetId,
        source,
        signer: u8aToHex(signer),
        dest: output.to,
        amount: output.amount.toString(),
        call: u8aToHex(prepared.call),
        nonce,
        checkpoint: { number: checkpoint.number.toString(), hash: checkpoint.hash },
        lastValidBlock: lastValidBlock.toString(),
        specVersion: runtime.specVersion,
        transactionVersion: runtime.transactionVersion,
        genesisHash,
        metadataKey: runtime.metadataKey,
        template: u8aToHex(template),
        signatureOffset: prepared.signatureOffset,
        signingPayload: u8aToHex(prepared.signingPayload),
      };
      return { intent, payload, fee, sourceAddresses: [source], expiresAt: { height: lastValidBlock } };
    },

    async sign(unsigned: UnsignedWithdrawal, secret: WalletSecret, derivationIndexes: number[]): Promise<SignedWithdrawal> {
      const p = payloadOf(unsigned);
      const entropy = secret.entropy();
      let pair: { publicKey: Uint8Array; secretKey: Uint8Array };
      try {
        pair = polkadotKeyPair(entropy, derivationIndexes[0] ?? 0);
      } finally {
        entropy.fill(0);
      }
      try {
        if (u8aToHex(pair.publicKey) !== p.signer)
          throw new BaseError('unprocessable', `the key at index ${derivationIndexes[0]} does not control ${p.source}`);
        const signature = sr25519Sign(toSign(hexToU8a(p.signingPayload)), pair);
        const raw = hexToU8a(p.template);
        raw.set(signature, p.signatureOffset);
        return { raw: u8aToHex(raw), txHash: blake2AsHex(raw, 256) };
      } finally {
        pair.secretKey.fill(0);
      }
    },

    checkSigned(prepared: UnsignedWithdrawal, raw: string, fresh?: UnsignedWithdrawal): CheckedSignedWithdrawal {
      let bytes: Uint8Array;
      let parts: ReturnType<typeof signedParts>;
      try {
        bytes = hexToU8a(raw);
        parts = signedParts(bytes);
      } catch (e) {
        throw new BaseError('unprocessable', `not a signed Polkadot extrinsic: ${(e as Error).message}`);
      }
      const candidates = [prepared, ...(fresh ? [fresh] : [])];
      let firstDifference = '';
      for (const u of candidates) {
        const p = payloadOf(u);
        const template = signedParts(hexToU8a(p.template));
        const call = hexToU8a(p.call);
        const difference =
          parts.signer !== p.signer
            ? `the signer is ${encodeAddress(hexToU8a(parts.signer))}, not the source ${p.source}`
            : parts.signatureType !== 1
              ? 'the signature is not sr25519'
              : !u8aEq(parts.rest.subarray(parts.rest.length - call.length), call) || parts.rest.length < call.length
                ? 'the call differs from the intent (recipient, amount or asset)'
                : !u8aEq(parts.rest, template.rest)
                  ? 'the signed extensions differ (nonce, era, tip or fee asset)'
                  : !verifies(toSign(hexToU8a(p.signingPayload)), parts.signature, hexToU8a(p.signer))
                    ? 'the signature does not verify for this network, runtime and era'
                    : '';
        if (!difference) {
          return {
            signed: { raw: u8aToHex(bytes), txHash: blake2AsHex(bytes, 256) },
            payload: p,
            fee: u.fee,
            ...(u.expiresAt ? { expiresAt: u.expiresAt } : {}),
          };
        }
        firstDifference ||= difference;
      }
      throw new BaseError('unprocessable', `the signed extrinsic does not pay the withdrawal: ${firstDifference}`);
    },

    async broadcast(signed: SignedWithdrawal, reader: PolkadotReader): Promise<void> {
      try {
        const hash = await reader.send<string>('author_submitExtrinsic', [signed.raw]);
        if (hash !== signed.txHash) throw new BaseError('node_error', 'the node reported another extrinsic hash');
      } catch (e) {
        if (e instanceof BaseError && !(e instanceof NodeCallError)) throw e;
        const message = nodeMessage(e);
        const m = message.toLowerCase();
        // The same bytes again (a retry after a crash): already in the pool, or already included.
        if (m.includes('already imported') || m.includes('temporarily banned') || m.includes('1013')) return;
        // Its nonce is used ("Transaction is outdated"): by these very bytes when a retry follows a
        // broadcast that landed, or by another transaction. `verify` tells the two apart (found in
        // a block of its era, or expired), so a retry is never an error here.
        if (m.includes('outdated') || m.includes('stale')) return;
        throw nodeRefusal(e);
      }
    },

    async verify(
      unsigned: UnsignedWithdrawal,
      txHash: string,
      reader: PolkadotReader,
      context?: VerifyContext,
    ): Promise<WithdrawalVerdict> {
      const p = payloadOf(unsigned);
      const head = await reader.head();
      const finalized = await reader.finalized();
      const last = BigInt(p.lastValidBlock) < head ? BigInt(p.lastValidBlock) : head;
      // No index by hash on Polkadot: the extrinsic can only be in a block of its era.
      for (let n = BigInt(p.checkpoint.number) + 1n; n <= last; n++) {
        const hash = await reader.blockHash(n);
        if (!hash) break;
        const index = (await reader.extrinsicHashes(hash)).indexOf(txHash);
        if (index < 0) continue;
        const content = await reader.blockContent(hash);
        // A pruned node has the block but no longer its state (its System.Events): the outcome is
        // unknown, never a failure (a paid withdrawal would read as failed). The node's "State already
        // discarded" errors end here the same way; the tracker keeps the row and records why.
        if (content.events === null) throw unknownOutcome(n);
        const { registry } = await reader.runtimeAt(content.header.parentHash);
        const records = registry.createType<Vec<EventRecord>>('Vec<EventRecord>', hexToU8a(content.events));
        const events = eventsOf(records, index);
        const outcome = (method: string) => events.some((r) => r.event.section === 'system' && r.event.method === method);
        // Every applied extrinsic ends with ExtrinsicSuccess or ExtrinsicFailed: neither is no answer.
        if (!outcome('ExtrinsicSuccess') && !outcome('ExtrinsicFailed')) throw unknownOutcome(n);
        const fee = feeFromEvents(events, p.signer);
        const failed = outcome('ExtrinsicFailed');
        const final = n <= finalized;
        const confirmations = Number(head - n + 1n);
        if (failed)
          return final
            ? { status: 'rejected', confirmations, fee, blockNumber: n, reason: 'failed_on_chain' }
            : { status: 'pending', confirmations, blockNumber: n };
        if (!paysIntent(events, p)) return { status: 'rejected', confirmations, fee, blockNumber: n, reason: 'failed_on_chain' };
        return final ? { status: 'confirmed', confirmations, fee, blockNumber: n } : { status: 'pending', confirmations, blockNumber: n };
      }
      if (finalized >= BigInt(p.lastValidBlock))
        return { status: 'rejected', confirmations: 0, reason: context?.seenInBlock ? 'reorg' : 'expired' };
      const pool = await reader.call<string[]>('author_pendingExtrinsics', []);
      if (pool.some((x) => blake2AsHex(hexToU8a(x), 256) === txHash)) return { status: 'pending', confirmations: 0 };
      return { status: 'missing', confirmations: 0 };
    },
  });
}
