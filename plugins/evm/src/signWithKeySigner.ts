import { BaseError, type KeySigner } from '@walletd/plugin-kit';
import type { TransactionLike } from 'ethers';
import { ethers } from './sdk';

/** The EVM address of a secp256k1 key held elsewhere (a token, a KMS): from its public key. */
export function evmAddressOf(signer: KeySigner): string {
  if (signer.curve !== 'secp256k1') throw new BaseError('internal', 'an EVM address needs a secp256k1 key');
  const { computeAddress, hexlify } = ethers();
  return computeAddress(hexlify(signer.publicKey()));
}

/**
 * Signs a transaction with a key that only returns `r‖s`: the recovery id (y parity) is the one of
 * the two that recovers the key's own address, the check every signer outside the process needs.
 */
export async function signTransactionWith(signer: KeySigner, request: TransactionLike<string>): Promise<string> {
  const { getBytes, hexlify, recoverAddress, Signature, Transaction } = ethers();
  const tx = Transaction.from(request);
  const digest = getBytes(tx.unsignedHash);
  const rs = await signer.sign(digest);
  const address = evmAddressOf(signer);
  for (const yParity of [0, 1] as const) {
    const signature = Signature.from({ r: hexlify(rs.subarray(0, 32)), s: hexlify(rs.subarray(32, 64)), yParity });
    if (recoverAddress(digest, signature) === address) {
      tx.signature = signature;
      return tx.serialized;
    }
  }
  throw new BaseError('internal', 'the signature does not recover the key’s address (not a secp256k1 signature of this digest)');
}
