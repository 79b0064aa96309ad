/**
 * Strings (UTF-8) and byte arrays joined into one new array with a buffer of its own, as a reader
 * hands a raw block to the detect pool: `{"block":` + the node's answer bytes + … without decoding
 * the answers to text and encoding them back. Its own buffer (never Buffer's shared pool, which
 * small `Buffer.concat` results come from) so the pool can transfer it rather than copy.
 * Allocated uninitialised (`allocUnsafeSlow`): every byte is written below, and zeroing a block's
 * few hundred KB first cost more than the copy (a third of the follower's main thread on
 * 360 KB blocks, issue 41's bench).
 */
export function concatBytes(parts: readonly (string | Uint8Array)[]): Uint8Array {
  const bytes = parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p));
  const out = Buffer.allocUnsafeSlow(bytes.reduce((n, b) => n + b.byteLength, 0));
  let at = 0;
  for (const b of bytes) {
    out.set(b, at);
    at += b.byteLength;
  }
  return out;
}
