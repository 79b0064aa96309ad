import { Router } from 'express';
import { BaseError, type Db, EVENT_TYPES, isEventType } from '@walletd/core';
import type { Common } from '../platform/context';
import { auth, requireGlobal } from '../http/scope';
import { eventsPageText, readEventsPage } from './eventsFeed';
import { sendJsonText } from '../http/jsonResponse';

/**
 * GET /v1/events?after=CURSOR&limit=N[&types=a,b]: the events of the key's wallets, in commit order.
 * `types` (default `*`, the spec's six) names what to list: an opt-in type (reconciliation.*)
 * appears only when named, as for webhooks.
 * Registered on `r`: the app passes its one /v1 router (a nested router costs every request a pass).
 */
export function eventsRouter(common: Common, r: Router = Router()): Router {
  r.get('/events', async (req, res) => {
    const a = auth(req);
    requireGlobal(a, 'events:read');
    const { after = '0', limit = '100', types = '*' } = req.query as Record<string, unknown>;
    const named = typeof types === 'string' ? types.split(',') : [];
    if (named.length === 0 || named.some((t) => t !== '*' && !isEventType(t)))
      throw new BaseError('validation_failed', 'types must be `*` or a comma-separated list of event types');
    const listed = [...new Set(named.flatMap((t) => (t === '*' ? [...EVENT_TYPES] : [t])))];
    if (typeof after !== 'string') throw new BaseError('validation_failed', 'after must be a cursor returned as `next`');
    if (typeof limit !== 'string' || !/^[0-9]{1,4}$/.test(limit) || Number(limit) < 1 || Number(limit) > 1000) {
      throw new BaseError('validation_failed', 'limit must be an integer from 1 to 1000');
    }
    const read = (db: Db) => readEventsPage(db, a.companyId, a.walletIds, after, Number(limit), listed);
    const page = common.primaryReads ? await common.primaryReads.run(read) : await read(common.db);
    sendJsonText(res, eventsPageText(page));
  });
  return r;
}
