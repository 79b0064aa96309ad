/** The programs a SOL or SPL transfer touches (base58 addresses, fixed on every cluster). */
export const SYSTEM_PROGRAM = '11111111111111111111111111111111';
export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
export const ASSOCIATED_TOKEN_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
export const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';

/**
 * Rent-exempt sizes: a plain system account holds no data, an SPL token account 165 bytes, a
 * Token-2022 associated token account 170 (its account type and the ImmutableOwner extension the
 * associated-token program adds). Token-2022 mints whose extensions add more to their accounts
 * (transfer fees, hooks) are not supported: a transfer fee would also pay the recipient less than
 * the intent, and `verify` would not call it paid.
 */
export const SYSTEM_ACCOUNT_SIZE = 0;
export const TOKEN_ACCOUNT_SIZE = 165;
export const TOKEN_2022_ACCOUNT_SIZE = 170;

/** Per signature, on every cluster since genesis. */
export const LAMPORTS_PER_SIGNATURE = 5000n;

/**
 * An allow-listed token in the config: `contract` is the mint (SPL Token program), or
 * `token-2022:<mint>` for a Token-2022 mint. A mint is credited only under the program it was
 * listed with.
 */
const TOKEN_2022_PREFIX = 'token-2022:';

export interface MintRef {
  mint: string;
  program: string;
}

export function parseTokenContract(contract: string): MintRef {
  if (contract.startsWith(TOKEN_2022_PREFIX)) return { mint: contract.slice(TOKEN_2022_PREFIX.length), program: TOKEN_2022_PROGRAM };
  return { mint: contract, program: TOKEN_PROGRAM };
}
