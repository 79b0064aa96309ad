import { BaseError } from '@walletd/core';
import { type RequestHandler, Router } from 'express';
import type { Common } from '../../platform/context';
import type { AuthContext } from '../../http/authContext';
import { checkBody } from '../../http/body';
import { auth, keySeesAllWallets, parseId, requireGlobal, walletFor } from '../../http/scope';
import { type EntryInput, addEntry, entryOf, listEntries, removeEntry, toEntryView } from './entries';

/**
 * The address book over the API (issue 42 §7). Reading takes `withdrawals:read`; adding or
 * removing an entry takes what paying it takes, `withdrawals:create`, on its wallet, or for a
 * company-wide entry a key that sees every wallet. A new entry still waits out its cooling-off
 * period before an `address_book` policy lets it receive: a leaked key cannot add and drain.
 * Registered on `r`: the app passes its one /v1 router.
 */
export function addressBookRouter(common: Common, writeLimit: RequestHandler, r: Router = Router()): Router {
  const { db } = common;

  /** The key may change entries of this scope: the wallet's, or (null) the whole company's. */
  async function mayWrite(a: AuthContext, walletId: number | null): Promise<void> {
    if (walletId !== null) {
      await walletFor(db, a, String(walletId), ['withdrawals:create']);
      return;
    }
    requireGlobal(a, 'withdrawals:create');
    if (!keySeesAllWallets(a)) throw new BaseError('forbidden', 'a company-wide address book entry needs a key that sees every wallet');
  }

  r.get('/address-book', async (req, res) => {
    const a = auth(req);
    requireGlobal(a, 'withdrawals:read');
    res.json({ entries: (await listEntries(db, a.companyId, a.walletIds)).map(toEntryView) });
  });

  r.post('/address-book', writeLimit, async (req, res) => {
    const a = auth(req);
    const body = checkBody<Omit<EntryInput, 'walletId'> & { walletId?: number | null }>('AddressBookEntryCreateRequest', req.body);
    const walletId = body.walletId ?? null;
    await mayWrite(a, walletId);
    const row = await addEntry(common, a.companyId, { ...body, walletId }, { type: 'api_key', id: a.keyId });
    res.status(201).location(`/v1/address-book/${row.id}`).json(toEntryView(row));
  });

  r.delete('/address-book/:id', writeLimit, async (req, res) => {
    const a = auth(req);
    const row = await entryOf(db, a.companyId, parseId(req.params.id, 'address book entry id'));
    await mayWrite(a, row.wallet_id);
    await removeEntry(db, a.companyId, row.id, { type: 'api_key', id: a.keyId });
    res.status(204).end();
  });
  return r;
}
