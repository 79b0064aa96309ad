/**
 * Accounts that no key controls and whose program never pays lamports or tokens out: the runtime's
 * and SPL's programs, the sysvars and the incinerator (where the runtime burns what it is sent).
 * A payment to one (SOL, or tokens to its associated token account) is lost or fails on chain.
 * Fixed on every cluster. A token mint is refused too when walletd knows it (an allow-listed
 * asset's contract, checked by the server for every chain); any other mint would need a node
 * lookup of the recipient's owner, and is accepted.
 */
const NO_KEY: ReadonlyMap<string, string> = new Map([
  ['1nc1nerator11111111111111111111111111111111', 'the incinerator'],
  ...[
    '11111111111111111111111111111111',
    'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
    'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb',
    'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL',
    'ComputeBudget111111111111111111111111111111',
    'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
    'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo',
    'Vote111111111111111111111111111111111111111',
    'Stake11111111111111111111111111111111111111',
    'Config1111111111111111111111111111111111111',
    'BPFLoader1111111111111111111111111111111111',
    'BPFLoader2111111111111111111111111111111111',
    'BPFLoaderUpgradeab1e11111111111111111111111',
    'NativeLoader1111111111111111111111111111111',
    'AddressLookupTab1e1111111111111111111111111',
    'Ed25519SigVerify111111111111111111111111111',
    'KeccakSecp256k11111111111111111111111111111',
  ].map((p) => [p, 'a program'] as const),
  ...[
    'SysvarC1ock11111111111111111111111111111111',
    'SysvarRent111111111111111111111111111111111',
    'SysvarRecentB1ockHashes11111111111111111111',
    'SysvarEpochSchedu1e111111111111111111111111',
    'SysvarFees111111111111111111111111111111111',
    'SysvarS1otHashes111111111111111111111111111',
    'SysvarS1otHistory11111111111111111111111111',
    'SysvarStakeHistory1111111111111111111111111',
    'Sysvar1nstructions1111111111111111111111111',
    'SysvarRewards111111111111111111111111111111',
  ].map((s) => [s, 'a sysvar'] as const),
]);

export const solanaBurnReason = (address: string): string | null => NO_KEY.get(address) ?? null;

/** For tests: every account the list names. */
export const solanaBurnAddresses = (): string[] => [...NO_KEY.keys()];
