import { hexToU8a, u8aToHex } from '@polkadot/util';
import { BaseError, type SignedWithdrawal, type UnsignedWithdrawal, type WalletSecret } from '@walletd/plugin-kit';
import { polkadotKeyPair } from '../addresses';
import { payloadOf, toSign } from '../payload';
import { utilCrypto } from '../sdk';

export async function signPolkadotWithdrawal(
  unsigned: UnsignedWithdrawal,
  secret: WalletSecret,
  derivationIndexes: number[],
): Promise<SignedWithdrawal> {
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
    const signature = utilCrypto().sr25519Sign(toSign(hexToU8a(p.signingPayload)), pair);
    const raw = hexToU8a(p.template);
    raw.set(signature, p.signatureOffset);
    return { raw: u8aToHex(raw), txHash: utilCrypto().blake2AsHex(raw, 256) };
  } finally {
    pair.secretKey.fill(0);
  }
}
