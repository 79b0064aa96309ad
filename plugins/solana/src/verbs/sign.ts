import { type SignatureBytes, type Transaction, getBase64EncodedWireTransaction } from '@solana/kit';
import type { SignedWithdrawal, UnsignedWithdrawal, WalletSecret } from '@walletd/plugin-kit';
import { signEd25519, solanaKey } from '../addresses';
import { base58 } from '../message';
import { payloadOf } from '../payload';
import { InvariantError } from '@walletd/plugin-kit';

export async function signSolanaWithdrawal(
  unsigned: UnsignedWithdrawal,
  secret: WalletSecret,
  derivationIndexes: number[],
): Promise<SignedWithdrawal> {
  const p = payloadOf(unsigned);
  const messageBytes = new Uint8Array(Buffer.from(p.message, 'base64'));
  const seed = secret.seed();
  const keys = new Map<string, ReturnType<typeof solanaKey>['key']>();
  try {
    for (const index of derivationIndexes) {
      const k = solanaKey(seed, index);
      keys.set(k.address, k.key);
    }
  } finally {
    seed.fill(0);
  }
  const signatures: Record<string, SignatureBytes> = {};
  for (const signer of p.signers) {
    const key = keys.get(signer);
    if (!key) throw new InvariantError(`no derived key controls the signer ${signer}`);
    signatures[signer] = signEd25519(key, messageBytes) as SignatureBytes;
  }
  const tx = { messageBytes, signatures } as unknown as Transaction;
  return { raw: getBase64EncodedWireTransaction(tx), txHash: base58(signatures[p.signers[0] as string] as Uint8Array) };
}
