import type { SignatureBytes, Transaction } from '@solana/kit';
import type { KeySigner, SignedWithdrawal, UnsignedWithdrawal, WalletSecret } from '@walletd/plugin-kit';
import { addressOfPublicKey, signEd25519, solanaKey } from '../addresses';
import { base58 } from '../message';
import { payloadOf } from '../payload';
import { InvariantError } from '@walletd/plugin-kit';
import { solanaKit } from '../sdk';

/**
 * Signs with each signer's key: derived from the seed, or, for a source whose key is held in a
 * token (a gas station paying as fee payer, `secret.signerAt`), signed there (ed25519 over the
 * whole message, as Solana verifies it).
 */
export async function signSolanaWithdrawal(
  unsigned: UnsignedWithdrawal,
  secret: WalletSecret,
  derivationIndexes: number[],
): Promise<SignedWithdrawal> {
  const p = payloadOf(unsigned);
  const messageBytes = new Uint8Array(Buffer.from(p.message, 'base64'));
  const keys = new Map<string, (message: Uint8Array) => Uint8Array | Promise<Uint8Array>>();
  const derived: number[] = [];
  for (const index of derivationIndexes) {
    const held: KeySigner | undefined = secret.signerAt?.(index);
    if (held && held.curve === 'ed25519') keys.set(addressOfPublicKey(held.publicKey()), (m) => held.sign(m));
    else derived.push(index);
  }
  if (derived.length > 0) {
    const seed = secret.seed();
    try {
      for (const index of derived) {
        const k = solanaKey(seed, index);
        keys.set(k.address, (m) => signEd25519(k.key, m));
      }
    } finally {
      seed.fill(0);
    }
  }
  const signatures: Record<string, SignatureBytes> = {};
  for (const signer of p.signers) {
    const sign = keys.get(signer);
    if (!sign) throw new InvariantError(`no derived key controls the signer ${signer}`);
    signatures[signer] = (await sign(messageBytes)) as SignatureBytes;
  }
  const tx = { messageBytes, signatures } as unknown as Transaction;
  return { raw: solanaKit().getBase64EncodedWireTransaction(tx), txHash: base58(signatures[p.signers[0] as string] as Uint8Array) };
}
