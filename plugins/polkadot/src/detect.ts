import type { EventRecord } from '@polkadot/types/interfaces';
import type { Vec } from '@polkadot/types';
import { hexToU8a, u8aToHex } from '@polkadot/util';
import type { DetectContext, DetectResult, DetectedTransfer } from '@walletd/plugin-kit';
import { arg } from './eventArgs';
import { decodeFrame } from './frame';
import { ss58Prefix } from './networks';
import { registryFor } from './runtimeRegistry';
import { BaseError } from '@walletd/plugin-kit';
import { utilCrypto } from './sdk';

/**
 * Polkadot / Asset Hub detector (worker thread, pure). Credits what the runtime says happened,
 * never what a call asked for: a `Balances.Transfer` event (DOT) or an `Assets.Transferred`
 * event of an allow-listed asset id, emitted while applying an extrinsic whose outcome is
 * `System.ExtrinsicSuccess`. A failed extrinsic emits no transfer (its changes are rolled back;
 * only the fee is charged), and an interrupted `utility.batch` (`BatchInterrupted`, the
 * extrinsic still succeeds) emitted the transfers that ran before the failing call and none
 * after it, so crediting emitted events credits exactly what moved.
 *
 * Identity: hashes are not unique on Polkadot (the same signed bytes can be valid twice), so a
 * transfer's `txKey` is `<block number>-<extrinsic index>`; `eventIndex` is the event's position
 * in the block's `System.Events`; `txHash` is the extrinsic hash (blake2-256 of its bytes).
 */
export function detect(raw: Uint8Array, ctx: DetectContext): DetectResult {
  const { header, metadata } = decodeFrame(raw);
  const block = { number: BigInt(header.number), hash: header.hash, parentHash: header.parentHash };
  const transfers: DetectedTransfer[] = [];
  if (!header.events) return { block, transfers };
  const registry = registryFor(header.metadataKey, metadata);
  const records = registry.createType<Vec<EventRecord>>('Vec<EventRecord>', hexToU8a(header.events));

  const succeeded = new Set<number>();
  for (const r of records) {
    if (r.phase.isApplyExtrinsic && r.event.section === 'system' && r.event.method === 'ExtrinsicSuccess')
      succeeded.add(r.phase.asApplyExtrinsic.toNumber());
  }
  const prefix = ss58Prefix(ctx.network);
  records.forEach((r, eventIndex) => {
    if (!r.phase.isApplyExtrinsic) return;
    const extrinsic = r.phase.asApplyExtrinsic.toNumber();
    if (!succeeded.has(extrinsic)) return;
    const { section, method, data } = r.event;
    let assetKey: string;
    let fromIdx: number;
    if (section === 'balances' && method === 'Transfer') {
      assetKey = ctx.native.key;
      fromIdx = 0;
    } else if (section === 'assets' && method === 'Transferred') {
      const token = ctx.tokens.get(arg(data, 0).toString());
      if (!token) return;
      assetKey = token.key;
      fromIdx = 1;
    } else return;
    const toKey = u8aToHex(arg(data, fromIdx + 1).toU8a());
    if (!ctx.watched.has(toKey)) return;
    const amount = BigInt(arg(data, fromIdx + 2).toString());
    // An asset transfer of 0 moved nothing: never a deposit (address poisoning).
    if (amount === 0n) return;
    const bytes = header.extrinsics[extrinsic];
    if (bytes === undefined)
      throw new BaseError('node_answer_invalid', `block ${header.number}: event for extrinsic ${extrinsic} of ${header.extrinsics.length}`);
    const txHash = utilCrypto().blake2AsHex(hexToU8a(bytes), 256);
    transfers.push({
      txHash,
      // Height and extrinsic hash: a hash alone is not unique on Substrate (an immortal extrinsic
      // of a reaped account can come again), and height + position (the key before migration 013)
      // named another fork's different extrinsic at the same place as the same transfer, whose
      // amount and recipient the store then kept (an invented deposit, the real one lost).
      txKey: `${header.number}-${txHash}`,
      eventIndex,
      from: utilCrypto().encodeAddress(arg(data, fromIdx).toU8a(), prefix),
      fromKey: u8aToHex(arg(data, fromIdx).toU8a()),
      to: utilCrypto().encodeAddress(arg(data, fromIdx + 1).toU8a(), prefix),
      toKey,
      assetKey,
      amount,
      eventType: section === 'balances' ? 'balances_transfer' : 'assets_transferred',
      extra: { extrinsicIndex: extrinsic, blockHash: header.hash },
    });
  });
  return { block, transfers };
}
