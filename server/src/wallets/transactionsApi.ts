import { BaseError, fromBaseUnits } from '@walletd/core';
import { Router } from 'express';
import { type Common, historyReads } from '../platform/context';
import { auth, keySeesWallet, parseId, requireGlobal, walletFor } from '../http/scope';
import { listTransactions } from './transactionList';
import { knownAssets, onchainBalances, walletBalances } from './transactions';

/** Registered on `r`: the app passes its one /v1 router (a nested router costs every request a pass). */
export function transactionsRouter(common: Common, r: Router = Router()): Router {
  const { db, config, plugins } = common;
  // The two reads whose cost grows with history: on their own pool, under a statement timeout.
  const reads = historyReads(common);

  r.get('/wallets/:id/balances', async (req, res) => {
    const wallet = await walletFor(db, auth(req), req.params.id, ['wallets:read']);
    const assets = knownAssets(config, plugins, wallet.chain, wallet.network);
    const native = plugins.chainTable().nativeAsset(wallet.chain, wallet.network);
    const balances = await reads.run((rdb) => walletBalances(rdb, assets, wallet.id, native.key));
    const { onchain } = req.query as Record<string, unknown>;
    if (onchain !== undefined && onchain !== 'true' && onchain !== 'false')
      throw new BaseError('validation_failed', 'onchain must be true or false');
    if (onchain !== 'true') {
      res.json({ walletId: wallet.id, balances });
      return;
    }
    // Every key the wallet holds funds under: deposit, change, account and gas station rows; a tagged address is
    // its account's and a token account is read through its owner (`getBalance(owner, asset)`).
    const addresses = (await db('addresses')
      .where({ wallet_id: wallet.id })
      .whereIn('kind', ['deposit', 'change', 'account', 'gas_station'])
      .whereNull('destination_tag')
      .pluck('address')) as string[];
    const live = await onchainBalances(
      config,
      plugins,
      wallet.chain,
      wallet.network,
      addresses,
      balances.map((b) => b.asset),
    );
    res.json({
      walletId: wallet.id,
      balances: balances.map((b) => {
        const onchain = live.get(b.asset.key) ?? { total: 0n, spendable: 0n };
        return {
          ...b,
          onchain: fromBaseUnits(onchain.total, b.asset.decimals),
          onchainSpendable: fromBaseUnits(onchain.spendable, b.asset.decimals),
        };
      }),
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
    if (after !== undefined && typeof after !== 'string')
      throw new BaseError('validation_failed', 'after must be the `next` of a previous page');
    let wallet: number | undefined;
    if (walletId !== undefined) {
      wallet = parseId(walletId, 'walletId');
      if (!keySeesWallet(a, wallet)) throw new BaseError('not_found', 'Wallet not found');
    }
    res.json(
      await reads.run((rdb) =>
        listTransactions(rdb, config, plugins, {
          companyId: a.companyId,
          walletIds: a.walletIds,
          walletId: wallet,
          search,
          after: after === undefined ? undefined : String(after),
          limit: Number(limit),
        }),
      ),
    );
  });
  return r;
}
