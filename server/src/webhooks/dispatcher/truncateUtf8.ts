/** The first `limit` bytes of a body, cut back to a whole UTF-8 character; null for an empty body. */
export function truncateUtf8(buf: Buffer, limit = 2048): string | null {
  if (buf.length === 0) return null;
  if (buf.length <= limit) return buf.toString('utf8');
  let cut = limit;
  // buf[cut] is the first byte left out; if it continues a character, that character started before it.
  while (cut > 0 && ((buf[cut] as number) & 0xc0) === 0x80) cut--;
  return buf.subarray(0, cut).toString('utf8');
}
