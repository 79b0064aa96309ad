import type { UnsignedWithdrawal } from '@walletd/plugin-kit';
import { utilCrypto } from './sdk';

/**
 * What `build` prepares and `sign` completes, JSON-serialisable. `template` is the whole signed
 * extrinsic with a placeholder sr25519 signature at `signatureOffset`; `signingPayload` is what the key
 * signs (the SCALE `ExtrinsicPayload`: call, extra and the implicit spec version, transaction
 * version, genesis and era checkpoint). Signing fills the signature in; nothing else changes.
 */
export interface PolkadotPayload {
  kind: 'native' | 'asset';
  assetId: number | null;
  source: string;
  /** The source's account id (hex). */
  signer: string;
  dest: string;
  amount: string;
  call: string;
  nonce: number;
  /** Block the era counts from (finalized when built) and the last block that can include it. */
  checkpoint: { number: string; hash: string };
  lastValidBlock: string;
  specVersion: number;
  transactionVersion: number;
  genesisHash: string;
  metadataKey: string;
  template: string;
  signatureOffset: number;
  signingPayload: string;
}

export const payloadOf = (u: UnsignedWithdrawal): PolkadotPayload => u.payload as PolkadotPayload;

/** sr25519 signs the payload itself, or its blake2-256 when longer than 256 bytes (as the runtime checks it). */
export const toSign = (payload: Uint8Array): Uint8Array => (payload.length > 256 ? utilCrypto().blake2AsU8a(payload, 256) : payload);
