import type { Vec } from '@polkadot/types';
import type { EventRecord } from '@polkadot/types/interfaces';
import { hexToU8a, u8aToHex } from '@polkadot/util';
import { BaseError, type UnsignedWithdrawal, type VerifyContext, type WithdrawalVerdict } from '@walletd/plugin-kit';
import { accountIdOf } from '../addresses';
import { arg } from '../eventArgs';
import { feeFromEvents } from '../feeFromEvents';
import { type PolkadotPayload, payloadOf } from '../payload';
import type { PolkadotReader } from '../reader';
import { utilCrypto } from '../sdk';

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
 * The transfer event of the intent within the extrinsic's events, exactly: of the intent's asset
 * (a payload built for another asset, e.g. DOT for a USDT withdrawal, pays nothing of it).
 */
function paysIntent(events: EventRecord[], p: PolkadotPayload, asset: UnsignedWithdrawal['intent']['asset']): boolean {
  if (asset.contractAddress === null ? p.kind !== 'native' : p.kind !== 'asset' || String(p.assetId) !== asset.contractAddress)
    return false;
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

export async function verifyPolkadotWithdrawal(
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
    // Successful but paying something else: not this intent. Pending like every chain (contract
    // `verify`): the reservation stays, and rejecting would release funds that moved.
    if (!paysIntent(events, p, unsigned.intent.asset)) return { status: 'pending', confirmations: 0, blockNumber: n };
    return final ? { status: 'confirmed', confirmations, fee, blockNumber: n } : { status: 'pending', confirmations, blockNumber: n };
  }
  if (finalized >= BigInt(p.lastValidBlock))
    return { status: 'rejected', confirmations: 0, reason: context?.seenInBlock ? 'reorg' : 'expired' };
  const pool = await reader.call<string[]>('author_pendingExtrinsics', []);
  if (pool.some((x) => utilCrypto().blake2AsHex(hexToU8a(x), 256) === txHash)) return { status: 'pending', confirmations: 0 };
  return { status: 'missing', confirmations: 0 };
}
