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
  status: 'active' | 'revoked' | 'expired';
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
