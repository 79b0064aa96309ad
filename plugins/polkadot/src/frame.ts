import { BaseError } from '@walletd/plugin-kit';
/**
 * What `fetchBlock` hands to `detect` (a worker thread, no I/O): one block with everything needed
 * to decode it, framed as
 *
 *   u32 LE length of the header | header (UTF-8 JSON) | runtime metadata (SCALE, as `state_getMetadata`)
 *
 * The header carries the block's identity, its extrinsics (hex, as `chain_getBlock`) and its
 * `System.Events` storage value (hex, null when the block has none). The metadata is that of the
 * runtime that executed the block (the parent's runtime version: in the block that upgrades the
 * runtime, the old code emitted the events); `metadataKey` names it (spec name, spec version and
 * a hash of the bytes), so a worker decodes each runtime's metadata once and then only reads the key.
 * The reader fetches metadata once per runtime version and the bytes travel to the worker
 * without a copy.
 */
export interface BlockFrameHeader {
  number: string;
  hash: string;
  parentHash: string;
  specName: string;
  specVersion: number;
  metadataKey: string;
  extrinsics: string[];
  events: string | null;
}

export interface BlockFrame {
  header: BlockFrameHeader;
  metadata: Uint8Array;
}

export function encodeFrame(header: BlockFrameHeader, metadata: Uint8Array): Uint8Array {
  const json = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(4 + json.length + metadata.length);
  new DataView(out.buffer).setUint32(0, json.length, true);
  out.set(json, 4);
  out.set(metadata, 4 + json.length);
  return out;
}

export function decodeFrame(raw: Uint8Array): BlockFrame {
  if (raw.length < 4) throw new BaseError('encoding_invalid', 'polkadot block frame: too short');
  const length = new DataView(raw.buffer, raw.byteOffset, raw.byteLength).getUint32(0, true);
  if (4 + length > raw.length) throw new BaseError('encoding_invalid', 'polkadot block frame: header overruns the frame');
  const header = JSON.parse(new TextDecoder().decode(raw.subarray(4, 4 + length))) as BlockFrameHeader;
  return { header, metadata: raw.subarray(4 + length) };
}
