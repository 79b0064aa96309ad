import type { Action, Plan, Role } from '@walletd/core';

export interface AuthContext {
  keyId: number;
  hint: string;
  name: string | null;
  companyId: number;
  companyName: string;
  plan: Plan;
  /** What the key was granted. */
  granted: Action[];
  /** Granted actions that the creator's current role still allows. */
  effective: ReadonlySet<Action>;
  /** null: every wallet of the company, including later ones. */
  walletIds: ReadonlySet<number> | null;
  allowIps: string[] | null;
  expiresAt: Date | null;
  createdAt: Date;
  creator: { memberId: number; role: Role | null } | null;
}

declare module 'express-serve-static-core' {
  interface Request {
    auth?: AuthContext;
  }
}
