import type { ConsoleApiKey, ConsoleCreatedKey, ConsoleKeyList, KeyActionChoice } from '@walletd/schemas';

/** An API key as the console lists it (the contract's ConsoleApiKey): never its secret. */
export type ApiKey = ConsoleApiKey;

/** One action a key can be granted, in words, and whether the signed-in member's role may grant it (the contract's KeyActionChoice). */
export type ActionChoice = KeyActionChoice;

/** The keys list and the answer to a create (the secret, here and nowhere else): the contract's. */
export type KeyList = ConsoleKeyList;
export type CreatedKey = ConsoleCreatedKey;

export const when = (iso: string | null, none: string): string => (iso ? new Date(iso).toLocaleString() : none);

/** How the keys table names a status: a removed creator's key is not "active", it cannot act at all. */
export const KEY_STATUS_LABELS: Record<ApiKey['status'], string> = {
  active: 'active',
  revoked: 'revoked',
  expired: 'expired',
  owner_removed: 'creator removed: cannot act',
};
