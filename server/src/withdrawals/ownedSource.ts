import { BaseError } from '@walletd/core';
import type { Knex } from 'knex';
import type { ResolvedIntent } from './intent';

/**
 * The wallet's own address named as `fromAddress`, or 422: an address of another wallet or
 * company never pays, and is never shown to approvers as a request's source either.
 */
export async function ownedSource(
  db: Knex,
  walletId: number,
  from: NonNullable<ResolvedIntent['from']>,
): Promise<{ address: string; index: number }> {
  const row = (await db('addresses').where({ wallet_id: walletId, match_key: from.matchKey }).first('address', 'derivation_index')) as
    | { address: string; derivation_index: number }
    | undefined;
  if (!row) throw new BaseError('unprocessable', `fromAddress ${from.address} is not an address of wallet ${walletId}`);
  return { address: row.address, index: row.derivation_index };
}
