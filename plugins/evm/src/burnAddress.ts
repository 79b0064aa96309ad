/**
 * Why a payment to `address` (any case) is lost on every EVM chain, or null to accept it.
 * - the zero address: no key hashes to it, and it is what an empty or unset field decodes to, so a
 *   payment there is nearly always a client's mistake (a token's `transfer` to it burns where it
 *   does not revert);
 * - 0x…01 to 0x…ff: reserved for precompiled contracts (ecrecover, sha256, …, the BLS12-381 set):
 *   code without a key or a way to send value on, so what they receive stays there.
 * Accepted: 0x…dEaD and other vanity burn addresses (typed on purpose to burn: refusing them
 * would stop deliberate burns), and contracts (many take payments; one that refuses makes the
 * node's gas estimate fail at prepare).
 */
export function evmBurnReason(address: string): string | null {
  const hex = address.toLowerCase().replace(/^0x/, '');
  if (!/^[0-9a-f]{40}$/.test(hex)) return null;
  if (/^0{40}$/.test(hex)) return 'the zero address';
  if (/^0{38}[0-9a-f]{2}$/.test(hex)) return 'reserved for precompiled contracts';
  return null;
}
