import { BaseError, type Action, type Db } from '@walletd/core';
import type { AuthContext } from './authContext';

export function auth(req: { auth?: AuthContext }): AuthContext {
  if (!req.auth) throw new BaseError('unauthorized', 'Missing or invalid API key');
  return req.auth;
}

/** 403 naming why: not granted, or granted but beyond what the creator's role allows now. */
function refuse(ctx: AuthContext, actions: readonly Action[]): never {
  const names = actions.map((a) => `"${a}"`).join(' or ');
  if (actions.some((a) => ctx.granted.includes(a))) {
    const role = ctx.creator?.role ?? 'removed';
    throw new BaseError('role_insufficient', `The member who created this API key (role: ${role}) may no longer use ${names}`);
  }
  throw new BaseError('forbidden', `This API key lacks the ${names} action`);
}

export function requireGlobal(ctx: AuthContext, action: Action): void {
  if (!ctx.effective.has(action)) refuse(ctx, [action]);
}

export const keySeesWallet = (ctx: Pick<AuthContext, 'walletIds'>, walletId: number): boolean =>
  ctx.walletIds === null || ctx.walletIds.has(walletId);

/** True when the key sees every wallet of the company (rule 4 and 5 of the webhook endpoints). */
export const keySeesAllWallets = (ctx: Pick<AuthContext, 'walletIds'>): boolean => ctx.walletIds === null;

export function parseId(raw: unknown, what = 'id'): number {
  if (typeof raw !== 'string' || !/^[1-9][0-9]{0,9}$/.test(raw) || Number(raw) > 2_147_483_647) {
    throw new BaseError('validation_failed', `${what} must be a positive integer`);
  }
  return Number(raw);
}

/** 64-bit row ids (deliveries) within JavaScript's safe integers. */
export function parseBigId(raw: unknown, what = 'id'): number {
  if (typeof raw !== 'string' || !/^[1-9][0-9]{0,15}$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw new BaseError('validation_failed', `${what} must be a positive integer`);
  }
  return Number(raw);
}

export interface WalletRow {
  id: number;
  company_id: number;
  name: string;
  chain: string;
  network: string;
  secret_envelope: unknown;
  next_address_index: number;
  created_at: Date;
  updated_at: Date;
}

/**
 * Loads a wallet the key can see, then checks the action: 404 for a wallet outside the key's
 * scope or company (indistinguishable from one that does not exist), 403 for a missing action.
 */
export async function walletFor(db: Db, ctx: AuthContext, rawId: unknown, anyOf: readonly Action[]): Promise<WalletRow> {
  const id = parseId(rawId, 'wallet id');
  const row: WalletRow | undefined = keySeesWallet(ctx, id)
    ? await db('wallets').where({ id, company_id: ctx.companyId }).whereNull('deleted_at').first()
    : undefined;
  if (!row) throw new BaseError('not_found', 'Wallet not found');
  if (!anyOf.some((a) => ctx.effective.has(a))) refuse(ctx, anyOf);
  return row;
}
