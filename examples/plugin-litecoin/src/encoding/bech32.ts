/**
 * BIP-173 bech32 for segwit version 0 (the only address form this plugin issues or pays:
 * P2WPKH and P2WSH). Version 1+ (bech32m, taproot) is refused rather than half supported.
 */
const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GENERATORS = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

function polymod(values: number[]): number {
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= GENERATORS[i] as number;
  }
  return chk;
}

const expandHrp = (hrp: string): number[] => [
  ...[...hrp].map((c) => c.charCodeAt(0) >>> 5),
  0,
  ...[...hrp].map((c) => c.charCodeAt(0) & 31),
];

/** Regroups bits (8 → 5 to encode, 5 → 8 to decode); null when the padding is not canonical. */
function convertBits(data: ArrayLike<number>, from: number, to: number, pad: boolean): number[] | null {
  let acc = 0;
  let bits = 0;
  const out: number[] = [];
  const max = (1 << to) - 1;
  for (let i = 0; i < data.length; i++) {
    acc = (acc << from) | (data[i] as number);
    bits += from;
    while (bits >= to) {
      bits -= to;
      out.push((acc >>> bits) & max);
    }
  }
  if (pad) {
    if (bits > 0) out.push((acc << (to - bits)) & max);
  } else if (bits >= from || ((acc << (to - bits)) & max) !== 0) {
    return null;
  }
  return out;
}

export function encodeSegwitV0(hrp: string, program: Uint8Array): string {
  const data = [0, ...(convertBits(program, 8, 5, true) as number[])];
  const mod = polymod([...expandHrp(hrp), ...data, 0, 0, 0, 0, 0, 0]) ^ 1;
  const checksum = Array.from({ length: 6 }, (_, i) => (mod >>> (5 * (5 - i))) & 31);
  return `${hrp}1${[...data, ...checksum].map((d) => CHARSET[d]).join('')}`;
}

/** The witness program of a version-0 address of network `hrp`; null for anything else. */
export function decodeSegwitV0(hrp: string, address: string): Uint8Array | null {
  if (address.length > 90 || (address !== address.toLowerCase() && address !== address.toUpperCase())) return null;
  const lower = address.toLowerCase();
  const sep = lower.lastIndexOf('1');
  if (sep < 1 || lower.slice(0, sep) !== hrp || lower.length - sep - 1 < 7) return null;
  const data: number[] = [];
  for (const c of lower.slice(sep + 1)) {
    const d = CHARSET.indexOf(c);
    if (d < 0) return null;
    data.push(d);
  }
  if (polymod([...expandHrp(hrp), ...data]) !== 1) return null;
  const [version, ...words] = data.slice(0, -6);
  if (version !== 0) return null;
  const program = convertBits(words, 5, 8, false);
  if (!program || (program.length !== 20 && program.length !== 32)) return null;
  return Uint8Array.from(program);
}
