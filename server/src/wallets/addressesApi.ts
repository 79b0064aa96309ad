import { Router } from 'express';
import type { Common } from '../platform/context';
import { checkBody } from '../http/body';
import { auth, walletFor } from '../http/scope';
import { issueDepositAddress, listAddresses } from './addresses';

/** Registered on `r`: the app passes its one /v1 router (a nested router costs every request a pass). */
export function addressesRouter(common: Common, r: Router = Router()): Router {
  r.post('/wallets/:id/addresses', async (req, res) => {
    const wallet = await walletFor(common.db, auth(req), req.params.id, ['wallets:generate_address']);
    const body = checkBody<{ label?: string; keyHeldIn?: 'wallet' | 'token' | 'kms'; kmsKeyId?: string }>('AddressCreateRequest', req.body);
    res.status(201).json(await issueDepositAddress(common, wallet, body.label ?? null, body.keyHeldIn, body.kmsKeyId));
  });
  r.get('/wallets/:id/addresses', async (req, res) => {
    const wallet = await walletFor(common.db, auth(req), req.params.id, ['wallets:read']);
    res.json({ addresses: await listAddresses(common.db, wallet.id) });
  });
  return r;
}
