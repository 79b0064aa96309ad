/** An API key as the console lists it (server/src/console/keyView.ts): never its secret. */
export interface ApiKey {
  id: number;
  hint: string;
  name: string | null;
  actions: string[];
  walletIds: number[] | '*';
  allowIps: string[] | null;
  createdBy: number | null;
  createdByEmail: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  createdAt: string;
  /** owner_removed: its creator is no longer a member, so the key can do nothing (it acts for them). */
  status: 'active' | 'revoked' | 'expired' | 'owner_removed';
  canRevoke: boolean;
}

/** One action a key can be granted, in words, and whether the signed-in member's role may grant it. */
export interface ActionChoice {
  action: string;
  description: string;
  global: boolean;
  allowed: boolean;
}

export interface KeyList {
  data: ApiKey[];
  actions: ActionChoice[];
  mayCreate: boolean;
}

/** The answer to a create: the secret, here and nowhere else. */
export interface CreatedKey {
  key: string;
  record: ApiKey;
  note: string;
}

export const when = (iso: string | null, none: string): string => (iso ? new Date(iso).toLocaleString() : none);

/** How the keys table names a status: a removed creator's key is not "active", it cannot act at all. */
export const KEY_STATUS_LABELS: Record<ApiKey['status'], string> = {
  active: 'active',
  revoked: 'revoked',
  expired: 'expired',
  owner_removed: 'creator removed: cannot act',
};
