import type { Db, WithdrawalRow } from '@walletd/core';

const hex = (address: string) => (/^0x[0-9a-fA-F]+$/.test(address) ? address.toLowerCase() : address);

/**
 * The withdrawals among `rows` whose source address is one of their wallet's addresses with a key
 * generated in the PKCS#11 token (a key label, migration 042): the console marks their source.
 * 0x-hex is compared case-insensitively (EVM checksums), other encodings exactly.
 */
export async function tokenHeldSources(db: Db, rows: readonly WithdrawalRow[]): Promise<Set<number>> {
  if (rows.length === 0) return new Set();
  const held = (await db('addresses')
    .whereIn('wallet_id', [...new Set(rows.map((w) => w.wallet_id))])
    .whereNotNull('key_label')
    .select('wallet_id', 'address')) as { wallet_id: number; address: string }[];
  const keys = new Set(held.map((a) => `${a.wallet_id}:${hex(a.address)}`));
  return new Set(rows.filter((w) => keys.has(`${w.wallet_id}:${hex(w.from_address)}`)).map((w) => w.id));
}
