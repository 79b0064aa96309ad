import type { Db, WithdrawalRow } from '@walletd/core';

const hex = (address: string) => (/^0x[0-9a-fA-F]+$/.test(address) ? address.toLowerCase() : address);

/**
 * Where the key of each withdrawal's source address is held, for those among `rows` whose source is
 * one of their wallet's addresses with a key outside walletd: `token` (a key label, generated in the
 * PKCS#11 token: migration 042) or `kms` (an AWS KMS key id: migration 046). The console marks
 * their source. 0x-hex is compared case-insensitively (EVM checksums), other encodings exactly.
 */
export async function keyHeldSources(db: Db, rows: readonly WithdrawalRow[]): Promise<Map<number, 'token' | 'kms'>> {
  if (rows.length === 0) return new Map();
  const held = (await db('addresses')
    .whereIn('wallet_id', [...new Set(rows.map((w) => w.wallet_id))])
    .where((q) => q.whereNotNull('key_label').orWhereNotNull('kms_key_id'))
    .select('wallet_id', 'address', 'key_label')) as { wallet_id: number; address: string; key_label: string | null }[];
  const where = new Map(held.map((a) => [`${a.wallet_id}:${hex(a.address)}`, a.key_label ? ('token' as const) : ('kms' as const)]));
  const out = new Map<number, 'token' | 'kms'>();
  for (const w of rows) {
    const held = where.get(`${w.wallet_id}:${hex(w.from_address)}`);
    if (held) out.set(w.id, held);
  }
  return out;
}
