import type { EventRecord } from '@polkadot/types/interfaces';
import { u8aToHex } from '@polkadot/util';
import { arg } from './eventArgs';

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
