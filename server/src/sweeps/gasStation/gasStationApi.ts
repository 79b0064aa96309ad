import { Router } from 'express';
import type { Common } from '../../platform/context';
import { auth, walletFor } from '../../http/scope';
import { gasStationView } from './gasStationView';

/**
 * `GET /v1/wallets/:id/gas-station` (docs/guide/sweeps-and-gas.md): the wallet's gas station, created at the
 * first ask so an operator can fund it before any sweep needs it. Reading it takes
 * `withdrawals:read`, like the sweep rules it pays for; it moves nothing.
 */
export function gasStationRouter(common: Common, r: Router = Router()): Router {
  r.get('/wallets/:id/gas-station', async (req, res) => {
    const wallet = await walletFor(common.db, auth(req), req.params.id, ['withdrawals:read']);
    res.json(await gasStationView(common, wallet));
  });
  return r;
}
