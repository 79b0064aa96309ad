import { BaseError } from '@walletd/core';
import { Router } from 'express';
import type { Common } from '../context';
import { auth, keySeesWallet, parseBigId, parseId, requireGlobal, walletFor } from '../http/scope';
import { knownAssets, listTransactions, walletBalances } from '../services/transactions';

export function transactionsRouter(common: Common): Router {
  const { db, config, plugins } = common;
  const r = Router();

  r.get('/wallets/:id/balances', async (req, res) => {
    const wallet = await walletFor(db, auth(req), req.params.id, ['wallets:read']);
    res.json({
      walletId: wallet.id,
      balances: await walletBalances(db, knownAssets(config, plugins, wallet.chain, wallet.network), wallet.id),
    });
  });

  r.get('/transactions', async (req, res) => {
    const a = auth(req);
    requireGlobal(a, 'transactions:read');
    const { search, walletId, after, limit = '50' } = req.query as Record<string, unknown>;
    if (typeof limit !== 'string' || !/^[0-9]{1,3}$/.test(limit) || Number(limit) < 1 || Number(limit) > 200) {
      throw new BaseError('validation_failed', 'limit must be an integer from 1 to 200');
    }
    if (search !== undefined && typeof search !== 'string') throw new BaseError('validation_failed', 'search must be a transaction hash');
    let wallet: number | undefined;
    if (walletId !== undefined) {
      wallet = parseId(walletId, 'walletId');
      if (!keySeesWallet(a, wallet)) throw new BaseError('not_found', 'Wallet not found');
    }
    res.json(
      await listTransactions(db, config, plugins, {
        companyId: a.companyId,
        walletIds: a.walletIds,
        walletId: wallet,
        search,
        after: after === undefined ? undefined : parseBigId(after, 'after'),
        limit: Number(limit),
      }),
    );
  });
  return r;
}
