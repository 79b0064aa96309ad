/**
 * XRP Ledger accounts nobody holds a key to (xrpl.org "Special Addresses"): encodings of chosen
 * account ids, not of public keys. What is paid to them can never be spent: a certain loss.
 */
const BLACK_HOLES: ReadonlyMap<string, string> = new Map([
  ['rrrrrrrrrrrrrrrrrrrrrhoLvTp', 'ACCOUNT_ZERO, the account id 0'],
  ['rrrrrrrrrrrrrrrrrrrrBZbvji', 'ACCOUNT_ONE, the account id 1'],
  ['rrrrrrrrrrrrrrrrrNAMEtxvNvQ', 'the name-reservation black hole'],
  ['rrrrrrrrrrrrrrrrrrrn5RM1rHd', 'the NaN account'],
]);

/** Why a payment to `account` (classic address) burns it, or null for an ordinary account. */
export const xrpBurnReason = (account: string): string | null => BLACK_HOLES.get(account) ?? null;
