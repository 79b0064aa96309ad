import type { ConsoleAddress, ConsoleAddressPage } from '@walletd/schemas';
import type { RequestHandler, Router } from 'express';
import { BaseError } from '@walletd/core';
import type { Common } from '../platform/context';
import { parseId } from '../http/scope';
import { requireMfaEnrolled } from '../members/sessions/memberGuards';
import { keyHeldIn } from './addressWrites';

/** What the page lists: what the API lists (deposit addresses, an account-tag wallet's account) and the wallet's gas station. */
const LISTED_KINDS: readonly ConsoleAddress['kind'][] = ['deposit', 'account', 'gas_station'];

interface Row {
  id: number;
  kind: ConsoleAddress['kind'];
  address: string;
  destination_tag: string | null;
  derivation_index: number;
  derivation_path: string;
  label: string | null;
  created_at: Date;
  key_label: string | null;
  kms_key_id: string | null;
}

const toConsoleAddress = (r: Row): ConsoleAddress => ({
  id: r.id,
  kind: r.kind,
  address: r.address,
  destinationTag: r.destination_tag === null ? null : Number(r.destination_tag),
  index: r.derivation_index,
  path: r.derivation_path,
  label: r.label,
  createdAt: r.created_at.toISOString(),
  ...keyHeldIn(r),
});

/**
 * A wallet's addresses (`GET /console/api/wallets/:id/addresses`), oldest first, paged by id
 * (`after`, `limit`), each saying whether its key is held in the PKCS#11 token or AWS KMS (issue 45). Any
 * member of the wallet's company may read, as the overview; a wallet of another company, or an
 * archived one, is 404 exactly like a missing one.
 */
export function mountAddressRoutes(r: Router, common: Common, session: RequestHandler): void {
  const { db } = common;

  r.get('/wallets/:id/addresses', session, requireMfaEnrolled(db), async (req, res) => {
    const s = req.memberSession!;
    const id = parseId(req.params.id, 'wallet id');
    const { after, limit = '50' } = req.query as Record<string, unknown>;
    if (typeof limit !== 'string' || !/^[0-9]{1,3}$/.test(limit) || Number(limit) < 1 || Number(limit) > 200)
      throw new BaseError('validation_failed', 'limit must be an integer from 1 to 200');
    const wallet = (await db('wallets')
      .where({ id, company_id: s.companyId })
      .whereNull('deleted_at')
      .first('id', 'name', 'chain', 'network')) as ConsoleAddressPage['wallet'] | undefined;
    if (!wallet) throw new BaseError('not_found', 'Wallet not found');
    const q = db('addresses')
      .where({ wallet_id: id })
      .whereIn('kind', LISTED_KINDS)
      .orderBy('id')
      .limit(Number(limit))
      .select(
        'id',
        'kind',
        'address',
        'destination_tag',
        'derivation_index',
        'derivation_path',
        'label',
        'created_at',
        'key_label',
        'kms_key_id',
      );
    if (after !== undefined) q.andWhere('id', '>', parseId(after, 'after'));
    const rows = (await q) as Row[];
    const last = rows[rows.length - 1];
    const page: ConsoleAddressPage = {
      wallet,
      addresses: rows.map(toConsoleAddress),
      next: rows.length === Number(limit) && last ? String(last.id) : null,
    };
    res.json(page);
  });
}
