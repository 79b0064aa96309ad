import { Router } from 'express';
import type { Common } from '../../platform/context';
import { auth, walletFor } from '../../http/scope';
import { gasStationView } from './gasStationView';
import { createKmsGasStation } from './gasStation';
import { checkBody } from '../../http/body';

/**
 * `GET /v1/wallets/:id/gas-station` (docs/guide/sweeps-and-gas.md): the wallet's gas station, created at the
 * first ask so an operator can fund it before any sweep needs it. Reading it takes
 * `withdrawals:read`, like the sweep rules it pays for; it moves nothing. `POST` makes it with an
 * AWS KMS key instead (`withdrawals:create`, like the rules): 201, or 409 once the wallet has one.
 */
export function gasStationRouter(common: Common, r: Router = Router()): Router {
  r.get('/wallets/:id/gas-station', async (req, res) => {
    const wallet = await walletFor(common.db, auth(req), req.params.id, ['withdrawals:read']);
    res.json(await gasStationView(common, wallet));
  });
  // A station whose key is an AWS KMS key (issue 45 §4): made before any GET would derive one.
  r.post('/wallets/:id/gas-station', async (req, res) => {
    const wallet = await walletFor(common.db, auth(req), req.params.id, ['withdrawals:create']);
    const body = checkBody<{ keyHeldIn: 'kms'; kmsKeyId: string }>('GasStationCreateRequest', req.body);
    await createKmsGasStation(common, wallet, body.kmsKeyId);
    res.status(201).json(await gasStationView(common, wallet));
  });
  return r;
}
