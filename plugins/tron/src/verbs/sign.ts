import { BaseError, type SignedWithdrawal, type UnsignedWithdrawal, type WalletSecret } from '@walletd/plugin-kit';
import { deriveTronKey, matchKeyOfKey, matchKeyOfPublicKey, tronMatchKey } from '../addresses';
import { bytesToHex, hexToBytes } from '../hex';
import { type TronTxPayload, assemble, payloadOf } from '../payload';
import { encodeSignedTransaction } from '../protobuf';
import { recoverSigner, signHash } from '../tronweb';

/** The payload's raw_data pays its own intent (a stored payload is re-read, never trusted). */
function checkPayload(unsigned: UnsignedWithdrawal): TronTxPayload {
  const p = payloadOf(unsigned);
  const built = assemble(p);
  if (bytesToHex(built.bytes) !== p.rawDataHex || built.txID !== p.txID)
    throw new BaseError('internal', 'the stored transaction does not match its own fields');
  const [output] = unsigned.intent.outputs;
  const token = unsigned.intent.asset.contractAddress;
  if (
    !output ||
    tronMatchKey(p.to) !== tronMatchKey(output.to) ||
    BigInt(p.amount) !== output.amount ||
    (p.memo ?? null) !== (output.memo ?? null) ||
    (token ? p.kind !== 'trc20' || tronMatchKey(p.contract as string) !== tronMatchKey(token) : p.kind !== 'trx')
  )
    throw new BaseError('internal', 'the stored transaction does not pay its intent');
  return p;
}

/** `r‖s` from a signer that gives no recovery id, as Tron's `r‖s‖v` (v = 27 + the id that recovers the owner). */
function recoverable(rs: Uint8Array, txID: string, ownerMatchKey: string): Uint8Array {
  for (const v of [27, 28]) {
    const signature = Uint8Array.from([...rs, v]);
    if (recoverSigner(txID, bytesToHex(signature)) === `41${ownerMatchKey}`) return signature;
  }
  throw new BaseError('internal', 'the signature does not recover the source address (not a secp256k1 signature of this txID)');
}

export async function signTronWithdrawal(
  unsigned: UnsignedWithdrawal,
  secret: WalletSecret,
  derivationIndexes: number[],
): Promise<SignedWithdrawal> {
  const p = checkPayload(unsigned);
  const index = derivationIndexes[0];
  if (index === undefined) throw new BaseError('internal', 'a derivation index is required to sign');
  // A key held in a token (or a KMS) signs the txID there (issue 45 §3): the seed is not opened.
  const held = secret.signerAt?.(index);
  if (held) {
    if (held.curve !== 'secp256k1' || matchKeyOfPublicKey(held.publicKey()) !== tronMatchKey(p.owner))
      throw new BaseError('internal', 'the token-held key does not control the source address');
    const signature = recoverable(await held.sign(hexToBytes(p.txID)), p.txID, tronMatchKey(p.owner));
    return { raw: bytesToHex(encodeSignedTransaction(hexToBytes(p.rawDataHex), [signature])), txHash: p.txID };
  }
  const seed = secret.seed();
  let key: Uint8Array;
  try {
    key = deriveTronKey(seed, index);
  } finally {
    seed.fill(0);
  }
  try {
    if (matchKeyOfKey(key) !== tronMatchKey(p.owner))
      throw new BaseError('internal', 'the derived key does not control the source address');
    const signature = hexToBytes(signHash(hexToBytes(p.txID), key));
    return { raw: bytesToHex(encodeSignedTransaction(hexToBytes(p.rawDataHex), [signature])), txHash: p.txID };
  } finally {
    key.fill(0);
  }
}
