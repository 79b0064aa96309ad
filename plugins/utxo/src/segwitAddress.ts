import { BaseError } from '@walletd/plugin-kit';

/**
 * BIP-173 (v0, bech32) and BIP-350 (v1+, bech32m) addresses of a witness program read in place.
 * Why not bitcoinjs' `address.toBech32`: on the detector's matched path (every output of a
 * transaction that pays a watched script) it cost 2.4 µs and ~1.9 KB of garbage per output — a
 * Buffer view, a word array grown and shifted, a string built one character at a time — which
 * was most of what a block with many matches adds to the walk (issue 17, bench/README.md `utxo`).
 * This writes the characters into one reused buffer and makes one string. Checked against
 * bitcoinjs for random programs and against the BIPs' vectors (segwitAddress.test.ts).
 */
const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const CODES = Uint8Array.from(CHARSET, (c) => c.charCodeAt(0));
const BECH32_CONST = 1;
const BECH32M_CONST = 0x2bc830a3;

function polymodStep(pre: number): number {
  const b = pre >> 25;
  return (
    ((pre & 0x1ffffff) << 5) ^
    (-((b >> 0) & 1) & 0x3b6a57b2) ^
    (-((b >> 1) & 1) & 0x26508e6d) ^
    (-((b >> 2) & 1) & 0x1ea119fa) ^
    (-((b >> 3) & 1) & 0x3d4233dd) ^
    (-((b >> 4) & 1) & 0x2a1462b3)
  );
}

/** The checksum state after the human-readable part (the same for every address of a network). */
const prefixStates = new Map<string, number>();
function prefixState(hrp: string): number {
  let chk = prefixStates.get(hrp);
  if (chk !== undefined) return chk;
  chk = 1;
  for (let i = 0; i < hrp.length; i++) {
    const c = hrp.charCodeAt(i);
    if (c < 33 || c > 126 || (c >= 65 && c <= 90)) throw new BaseError('input_invalid', `invalid bech32 prefix "${hrp}"`);
    chk = polymodStep(chk) ^ (c >> 5);
  }
  chk = polymodStep(chk);
  for (let i = 0; i < hrp.length; i++) chk = polymodStep(chk) ^ (hrp.charCodeAt(i) & 0x1f);
  prefixStates.set(hrp, chk);
  return chk;
}

// Holds any address within bech32's 90 characters (checked below). One per thread: a call never yields.
const out = Buffer.alloc(128);

/** The address of witness `version` with the program `bytes[start..end)`, e.g. `bc1q…` for v0. */
export function segwitAddress(hrp: string, version: number, bytes: Uint8Array, start: number, end: number): string {
  const length = end - start;
  if (version < 0 || version > 16 || length < 2 || length > 40)
    throw new BaseError('input_invalid', `no segwit address for version ${version}, ${length} bytes`);
  if (hrp.length + 8 + Math.ceil((length * 8) / 5) > 90) throw new BaseError('input_invalid', 'bech32 address longer than 90 characters');
  let chk = prefixState(hrp);
  let n = 0;
  for (let i = 0; i < hrp.length; i++) out[n++] = hrp.charCodeAt(i);
  out[n++] = 0x31; // '1'
  chk = polymodStep(chk) ^ version;
  out[n++] = CODES[version] as number;
  // 8-bit bytes to 5-bit words, most significant first; at most 12 bits are ever pending.
  let value = 0;
  let bits = 0;
  for (let i = start; i < end; i++) {
    value = ((value << 8) | (bytes[i] as number)) & 0xfff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      const w = (value >> bits) & 31;
      chk = polymodStep(chk) ^ w;
      out[n++] = CODES[w] as number;
    }
  }
  if (bits > 0) {
    const w = (value << (5 - bits)) & 31;
    chk = polymodStep(chk) ^ w;
    out[n++] = CODES[w] as number;
  }
  for (let i = 0; i < 6; i++) chk = polymodStep(chk);
  chk ^= version === 0 ? BECH32_CONST : BECH32M_CONST;
  for (let i = 0; i < 6; i++) out[n++] = CODES[(chk >> ((5 - i) * 5)) & 31] as number;
  return out.toString('latin1', 0, n);
}
