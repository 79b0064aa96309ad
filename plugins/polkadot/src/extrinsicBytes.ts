import { compactFromU8a, u8aToHex } from '@polkadot/util';
import { BaseError } from '@walletd/plugin-kit';

/**
 * The parts of a signed v4 extrinsic (`compact length | 0x84 | MultiAddress::Id(32) |
 * MultiSignature | extra | call`), read without runtime metadata so that signing and the check of
 * an external signature need no node: the call and the signed extensions' extra bytes are
 * compared with what `build` prepared, the signature verified against the prepared payload.
 */
export interface SignedParts {
  signer: string;
  /** 0 ed25519, 1 sr25519, 2 ecdsa. */
  signatureType: number;
  signature: Uint8Array;
  /** Offset of the signature bytes in the whole encoding. */
  signatureOffset: number;
  /** Everything after the signature: extra then call. */
  rest: Uint8Array;
}

const SIGNATURE_LENGTH: Record<number, number> = { 0: 64, 1: 64, 2: 65 };

export function signedParts(bytes: Uint8Array): SignedParts {
  const [offset, length] = compactFromU8a(bytes);
  if (offset + length.toNumber() !== bytes.length)
    throw new BaseError('encoding_invalid', 'the length prefix does not match the extrinsic');
  let i = offset;
  if (bytes[i] !== 0x84) throw new BaseError('encoding_invalid', 'not a signed v4 extrinsic');
  i += 1;
  if (bytes[i] !== 0x00) throw new BaseError('encoding_invalid', 'the signer is not an account id (MultiAddress::Id)');
  const signer = u8aToHex(bytes.subarray(i + 1, i + 33));
  i += 33;
  const signatureType = bytes[i] as number;
  const size = SIGNATURE_LENGTH[signatureType];
  if (size === undefined) throw new BaseError('encoding_invalid', 'unknown signature type');
  const signature = bytes.subarray(i + 1, i + 1 + size);
  if (signature.length !== size) throw new BaseError('encoding_invalid', 'truncated signature');
  return { signer, signatureType, signature, signatureOffset: i + 1, rest: bytes.subarray(i + 1 + size) };
}
