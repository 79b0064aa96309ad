import { Router } from 'express';
import { BaseError } from '@walletd/core';
import type { Common } from '../context';
import { validateBody } from '../http/body';
import { auth, parseId, requireGlobal } from '../http/scope';
import { getDelivery, listDeliveries, redeliver, replay } from '../services/deliveries';
import {
  createWebhook,
  deleteWebhook,
  getWebhookFor,
  listWebhooks,
  rotateSecret,
  toWebhookView,
  updateWebhook,
  type WebhookDeps,
} from '../services/webhooks';
import type { DestinationPolicy } from '../webhooks/destinationPolicy';

/** Spec 4.1. Every operation needs the global `webhooks:manage` action and rule 5's visibility. */
export function webhooksRouter(common: Common, policy: DestinationPolicy): Router {
  const deps: WebhookDeps = { db: common.db, masterKey: common.masterKey, policy };
  const { db } = common;
  const r = Router();

  const managed = async (req: Parameters<Parameters<typeof r.get>[1]>[0]) => {
    const a = auth(req);
    requireGlobal(a, 'webhooks:manage');
    return { a, row: req.params.id === undefined ? undefined : await getWebhookFor(db, a, parseId(req.params.id, 'webhook id')) };
  };

  r.post('/webhooks', validateBody('WebhookCreateRequest'), async (req, res) => {
    const { a } = await managed(req);
    const created = await createWebhook(deps, a, req.body);
    res.status(201).location(`/v1/webhooks/${created.id}`).json(created);
  });

  r.get('/webhooks', async (req, res) => {
    const { a } = await managed(req);
    res.json({ webhooks: await listWebhooks(deps, a) });
  });

  r.patch('/webhooks/:id', (req, _res, next) => {
    // Clear answers for the two fields PATCH never takes, before the generic schema message.
    const body = req.body ?? {};
    if (body && typeof body === 'object' && 'type' in body) {
      next(new BaseError('validation_failed', 'type cannot be changed; create a new webhook and delete this one'));
      return;
    }
    if (body && typeof body === 'object' && 'signingSecret' in body) {
      next(new BaseError('validation_failed', 'signingSecret cannot be set here; use POST /v1/webhooks/:id/rotate-secret'));
      return;
    }
    next();
  });
  r.patch('/webhooks/:id', validateBody('WebhookUpdateRequest'), async (req, res) => {
    const { a, row } = await managed(req);
    res.json(await updateWebhook(deps, a, row!, req.body));
  });

  r.delete('/webhooks/:id', async (req, res) => {
    const { row } = await managed(req);
    await deleteWebhook(db, row!);
    res.status(204).end();
  });

  r.post('/webhooks/:id/rotate-secret', validateBody('RotateSecretRequest'), async (req, res) => {
    const { row } = await managed(req);
    res.setHeader('Cache-Control', 'no-store');
    res.json(await rotateSecret(deps, row!, req.body.signingSecret));
  });

  r.get('/webhooks/:id/deliveries', async (req, res) => {
    const { row } = await managed(req);
    const raw = req.query.limit;
    let limit = 50;
    if (raw !== undefined) {
      if (typeof raw !== 'string' || !/^[0-9]{1,3}$/.test(raw) || Number(raw) < 1 || Number(raw) > 100) {
        throw new BaseError('validation_failed', 'limit must be an integer from 1 to 100');
      }
      limit = Number(raw);
    }
    res.json({ deliveries: await listDeliveries(db, row!.id, limit) });
  });

  r.get('/webhooks/:id/deliveries/:deliveryId', async (req, res) => {
    const { row } = await managed(req);
    res.json({ delivery: await getDelivery(db, row!.id, parseId(req.params.deliveryId, 'delivery id')) });
  });

  r.post('/webhooks/:id/deliveries/:deliveryId/redeliver', async (req, res) => {
    const { row } = await managed(req);
    res.status(202).json({ delivery: await redeliver(db, row!, parseId(req.params.deliveryId, 'delivery id')) });
  });

  r.post('/webhooks/:id/replay', validateBody('ReplayRequest'), async (req, res) => {
    const { row } = await managed(req);
    res.status(202).json({ queued: await replay(db, row!, req.body) });
  });

  // GET /webhooks/:id is not in the spec; answer it anyway, it is what a caller tries first.
  r.get('/webhooks/:id', async (req, res) => {
    const { row } = await managed(req);
    res.json(toWebhookView(common.masterKey, row!));
  });

  return r;
}
