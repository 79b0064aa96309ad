import { Router, type RequestHandler } from 'express';
import type { Common } from '../platform/context';
import { validateBody } from '../http/body';
import { auth, requireGlobal, walletFor } from '../http/scope';
import { createWallet, deleteWallet, listWallets, readSealedSecret, renameWallet, toWalletView } from './wallets';

/** Registered on `r`: the app passes its one /v1 router (a nested router costs every request a pass). */
export function walletsRouter(common: Common, writeLimit: RequestHandler, r: Router = Router()): Router {
  const { db, masterKey } = common;

  r.get('/wallets', async (req, res) => {
    const a = auth(req);
    requireGlobal(a, 'wallets:read');
    res.json({ wallets: await listWallets(db, a.companyId, a.walletIds) });
  });

  r.post('/wallets', writeLimit, validateBody('WalletCreateRequest'), async (req, res) => {
    const a = auth(req);
    requireGlobal(a, 'wallets:create');
    const wallet = await createWallet(db, masterKey, { companyId: a.companyId, ...req.body }, common.plugins);
    res.status(201).location(`/v1/wallets/${wallet.id}`).json(wallet);
  });

  r.get('/wallets/:id', async (req, res) => {
    res.json(toWalletView(await walletFor(db, auth(req), req.params.id, ['wallets:read'])));
  });

  r.patch('/wallets/:id', writeLimit, validateBody('WalletUpdateRequest'), async (req, res) => {
    const wallet = await walletFor(db, auth(req), req.params.id, ['wallets:update']);
    res.json(await renameWallet(db, wallet, req.body.name));
  });

  r.delete('/wallets/:id', writeLimit, async (req, res) => {
    const wallet = await walletFor(db, auth(req), req.params.id, ['wallets:delete']);
    await deleteWallet(db, wallet);
    res.status(204).end();
  });

  // Spec 4.2 / 5.4: allowed with withdrawals:create or wallets:generate_address on that wallet.
  r.get('/wallets/:id/secret', async (req, res) => {
    const a = auth(req);
    const wallet = await walletFor(db, a, req.params.id, ['withdrawals:create', 'wallets:generate_address']);
    const sealedSecret = await readSealedSecret(db, masterKey, wallet, { companyId: a.companyId, keyId: a.keyId, ip: req.ip ?? null });
    res.setHeader('Cache-Control', 'no-store');
    res.json({ walletId: wallet.id, format: 'wdseal1', secretType: 'bip39-mnemonic', sealedSecret });
  });

  return r;
}
