import { Router } from 'express';
import { BaseError } from '@walletd/core';
import type { Common } from '../context';
import { auth, requireGlobal } from '../http/scope';
import { listEvents } from '../services/deliveries';

/**
 * GET /v1/events?after=CURSOR&limit=N: every event of the key's wallets, in commit order.
 * Registered on `r`: the app passes its one /v1 router (a nested router costs every request a pass).
 */
export function eventsRouter(common: Common, r: Router = Router()): Router {
  r.get('/events', async (req, res) => {
    const a = auth(req);
    requireGlobal(a, 'events:read');
    const { after = '0', limit = '100' } = req.query as Record<string, unknown>;
    if (typeof after !== 'string') throw new BaseError('validation_failed', 'after must be a cursor returned as `next`');
    if (typeof limit !== 'string' || !/^[0-9]{1,4}$/.test(limit) || Number(limit) < 1 || Number(limit) > 1000) {
      throw new BaseError('validation_failed', 'limit must be an integer from 1 to 1000');
    }
    res.json(await listEvents(common.db, a.companyId, a.walletIds, after, Number(limit)));
  });
  return r;
}
