import { BaseError, type SignedWithdrawal, type UnsignedWithdrawal, type WalletSecret } from '@walletd/plugin-kit';
import type { Wallet } from 'xrpl';
import { deriveXrpKey } from '../addresses';
import { payloadOf } from '../payload';
import { differenceFromIntent } from '../paysIntent';
import { xrpl } from '../sdk';

/** Signs the stored Payment with the account's master key, after checking it still pays its intent. */
export async function signXrpWithdrawal(
  unsigned: UnsignedWithdrawal,
  secret: WalletSecret,
  derivationIndexes: number[],
): Promise<SignedWithdrawal> {
  const { tx } = payloadOf(unsigned);
  const difference = differenceFromIntent(unsigned.intent, tx as unknown as Record<string, unknown>);
  if (difference) throw new BaseError('internal', `the stored Payment does not pay its intent: ${difference}`);
  const seed = secret.seed();
  let key: { publicKey: string; privateKey: string };
  try {
    key = deriveXrpKey(seed, derivationIndexes[0] ?? 0);
  } finally {
    seed.fill(0);
  }
  const wallet = new (xrpl().Wallet)(key.publicKey, key.privateKey);
  if (wallet.classicAddress !== tx.Account) throw new BaseError('internal', 'the derived key does not control the source account');
  const { tx_blob, hash } = wallet.sign({ ...tx } as Parameters<Wallet['sign']>[0]);
  return { raw: tx_blob, txHash: hash };
}
