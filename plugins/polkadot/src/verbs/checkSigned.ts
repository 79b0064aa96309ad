import { hexToU8a, u8aEq, u8aToHex } from '@polkadot/util';
import { BaseError, type CheckedSignedWithdrawal, type UnsignedWithdrawal } from '@walletd/plugin-kit';
import { signedParts } from '../extrinsicBytes';
import { payloadOf, toSign } from '../payload';
import { utilCrypto } from '../sdk';

/** sr25519 verification; bytes that are no valid signature at all (not a curve point) verify nothing. */
function verifies(message: Uint8Array, signature: Uint8Array, publicKey: Uint8Array): boolean {
  try {
    return utilCrypto().sr25519Verify(message, signature, publicKey);
  } catch {
    return false;
  }
}

export function checkSignedPolkadotWithdrawal(
  prepared: UnsignedWithdrawal,
  raw: string,
  fresh?: UnsignedWithdrawal,
): CheckedSignedWithdrawal {
  let bytes: Uint8Array;
  let parts: ReturnType<typeof signedParts>;
  try {
    bytes = hexToU8a(raw);
    parts = signedParts(bytes);
  } catch (e) {
    throw new BaseError('unprocessable', `not a signed Polkadot extrinsic: ${(e as Error).message}`);
  }
  const candidates = [prepared, ...(fresh ? [fresh] : [])];
  let firstDifference = '';
  for (const u of candidates) {
    const p = payloadOf(u);
    const template = signedParts(hexToU8a(p.template));
    const call = hexToU8a(p.call);
    const difference =
      parts.signer !== p.signer
        ? `the signer is ${utilCrypto().encodeAddress(hexToU8a(parts.signer))}, not the source ${p.source}`
        : parts.signatureType !== 1
          ? 'the signature is not sr25519'
          : !u8aEq(parts.rest.subarray(parts.rest.length - call.length), call) || parts.rest.length < call.length
            ? 'the call differs from the intent (recipient, amount or asset)'
            : !u8aEq(parts.rest, template.rest)
              ? 'the signed extensions differ (nonce, era, tip or fee asset)'
              : !verifies(toSign(hexToU8a(p.signingPayload)), parts.signature, hexToU8a(p.signer))
                ? 'the signature does not verify for this network, runtime and era'
                : '';
    if (!difference) {
      return {
        signed: { raw: u8aToHex(bytes), txHash: utilCrypto().blake2AsHex(bytes, 256) },
        payload: p,
        fee: u.fee,
        ...(u.expiresAt ? { expiresAt: u.expiresAt } : {}),
      };
    }
    firstDifference ||= difference;
  }
  throw new BaseError('unprocessable', `the signed extrinsic does not pay the withdrawal: ${firstDifference}`);
}
