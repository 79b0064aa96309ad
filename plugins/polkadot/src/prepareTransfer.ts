import type { TypeRegistry } from '@polkadot/types';
import { u8aConcat, u8aToHex } from '@polkadot/util';
import { InvariantError, BaseError } from '@walletd/plugin-kit';
import { signedParts } from './extrinsicBytes';

/** Blocks a signed withdrawal stays valid (its mortal era); ~6.4 minutes at 6 s blocks. */
export const ERA_PERIOD = 64;

export interface TransferParams {
  /** null: the native asset (`balances.transferKeepAlive`); else an assets-pallet id (`assets.transferKeepAlive`). */
  assetId: number | null;
  /** `transferKeepAlive` (the default); false: `transfer` (assets only: the whole balance leaves). */
  keepAlive?: boolean;
  signer: Uint8Array;
  dest: Uint8Array;
  amount: bigint;
  nonce: number;
  /** The block the mortal era counts from. */
  checkpoint: { number: bigint; hash: string };
  specVersion: number;
  transactionVersion: number;
  genesisHash: string;
}

export interface PreparedTransfer {
  call: Uint8Array;
  /** The signed extrinsic with a placeholder sr25519 signature at `signatureOffset`. */
  template: Uint8Array;
  signatureOffset: number;
  /** The SCALE `ExtrinsicPayload` the key signs (call, extra, spec and transaction version, genesis, era checkpoint). */
  signingPayload: Uint8Array;
  /** The last block that can include it. */
  lastValidBlock: bigint;
}

/**
 * A transferKeepAlive prepared for signing with the runtime's own types (its call indexes and
 * signed extensions come from its metadata): pure, so it is checked offline against the current
 * Asset Hub metadata as well as executed by the test runtime.
 */
export function prepareTransfer(registry: TypeRegistry, t: TransferParams): PreparedTransfer {
  const call = callFor(registry, t.assetId, t.dest, t.amount, t.keepAlive ?? true);
  const era = registry.createType('ExtrinsicEra', { current: Number(t.checkpoint.number), period: ERA_PERIOD });
  const payloadValue = {
    method: u8aToHex(call),
    era,
    nonce: t.nonce,
    tip: 0,
    specVersion: t.specVersion,
    transactionVersion: t.transactionVersion,
    genesisHash: t.genesisHash,
    blockHash: t.checkpoint.hash,
    mode: 0,
  };
  const signingPayload = registry.createType('ExtrinsicPayload', payloadValue, { version: 4 }).toU8a({ method: true });
  const extrinsic = registry.createType('Extrinsic', registry.createType('Call', call), { version: 4 });
  // A placeholder signature (an all-zero one would read as unsigned); `sign` overwrites it.
  extrinsic.addSignature(u8aToHex(t.signer), u8aConcat([1], new Uint8Array(64).fill(1)), payloadValue as never);
  const template = extrinsic.toU8a();
  const parts = signedParts(template);
  if (parts.signer !== u8aToHex(t.signer) || parts.signatureType !== 1) throw new InvariantError('unexpected extrinsic layout');
  const lastValidBlock = BigInt(era.asMortalEra.death(Number(t.checkpoint.number)).toString()) - 1n;
  return { call, template, signatureOffset: parts.signatureOffset, signingPayload, lastValidBlock };
}

function callFor(registry: TypeRegistry, assetId: number | null, dest: Uint8Array, amount: bigint, keepAlive: boolean): Uint8Array {
  const section = assetId === null ? 'balances' : 'assets';
  const call = registry.createType('Call', {
    callIndex: callIndexOf(registry, section, keepAlive || assetId === null ? 'transferKeepAlive' : 'transfer'),
    args: assetId === null ? { dest: { Id: dest }, value: amount } : { id: assetId, target: { Id: dest }, amount },
  });
  return call.toU8a();
}

function callIndexOf(registry: TypeRegistry, section: string, method: string): Uint8Array {
  for (const p of registry.metadata.pallets) {
    if (p.name.toString().toLowerCase() !== section) continue;
    if (p.calls.isNone) break;
    const type = registry.lookup.getSiType(p.calls.unwrap().type);
    const snake = method.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    const variant = type.def.asVariant.variants.find((v) => v.name.toString() === snake);
    if (variant) return new Uint8Array([p.index.toNumber(), variant.index.toNumber()]);
  }
  throw new BaseError('unprocessable', `the runtime has no ${section}.${method}`);
}
