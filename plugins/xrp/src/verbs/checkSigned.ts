import { BaseError, type CheckedSignedWithdrawal, type UnsignedWithdrawal } from '@walletd/plugin-kit';
import { FEE_CAP_DROPS, type PaymentJson, type XrpPayload, payloadOf, xrp } from '../payload';
import { differenceFromIntent } from '../paysIntent';
import { xrpl } from '../sdk';

/** A Payment signed elsewhere: the prepared one exactly, single-signed by the source's master key, expiring, fee under the cap. */
export function checkSignedXrpWithdrawal(prepared: UnsignedWithdrawal, raw: string, fresh?: UnsignedWithdrawal): CheckedSignedWithdrawal {
  let tx: Record<string, unknown>;
  try {
    tx = xrpl().decode(raw) as Record<string, unknown>;
  } catch {
    throw new BaseError('unprocessable', 'the signed transaction is not an XRP Ledger transaction blob');
  }
  const refuse = (what: string): never => {
    throw new BaseError('unprocessable', `the signed transaction does not pay the prepared withdrawal: ${what}`);
  };
  const difference = differenceFromIntent(prepared.intent, tx);
  if (difference) refuse(difference);
  if (typeof tx.SigningPubKey !== 'string' || tx.SigningPubKey === '') refuse('it is not single-signed');
  if (!xrpl().verifySignature(raw)) refuse('its signature does not verify');
  // A valid signature by any key is not enough: walletd's accounts have no regular key, so only the master key signs for them.
  if (xrpl().deriveAddress(tx.SigningPubKey as string) !== tx.Account)
    refuse(`it is signed by a key that does not control ${String(tx.Account)}`);
  if (typeof tx.LastLedgerSequence !== 'number') refuse('it has no LastLedgerSequence, so it would never expire');
  const fee = BigInt(String(tx.Fee));
  if (fee > FEE_CAP_DROPS) refuse(`its fee ${xrp(fee)} is above the cap ${xrp(FEE_CAP_DROPS)}`);
  const { SigningPubKey: _p, TxnSignature: _s, ...unsignedFields } = tx;
  const validatedAtBuild = payloadOf(fresh ?? prepared).validatedAtBuild;
  return {
    signed: { raw, txHash: xrpl().hashes.hashSignedTx(raw) },
    payload: { tx: unsignedFields as unknown as PaymentJson, validatedAtBuild } satisfies XrpPayload,
    fee,
    expiresAt: { height: BigInt(tx.LastLedgerSequence as number) },
  };
}
