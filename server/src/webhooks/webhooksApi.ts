import { type Request, type RequestHandler, Router } from 'express';
import { BaseError } from '@walletd/core';
import type { Common } from '../platform/context';
import { checkBody } from '../http/body';
import { auth, parseBigId, parseId, requireGlobal } from '../http/scope';
import { webhookAuditDetails } from './webhookAudit';
import { audit } from '../company/audit';
import type { AuthContext } from '../http/authContext';
import { getDelivery, listDeliveries, redeliver, replay, type ReplayInput } from './deliveries';
import {
  createWebhook,
  deleteWebhook,
  getWebhookFor,
  listWebhooks,
  rotateSecret,
  toWebhookView,
  updateWebhook,
  type UpdateWebhookInput,
  type WebhookDeps,
} from './webhooks';
import type { DestinationPolicy } from './destinationPolicy';

/**
 * Spec 4.1. Every operation needs the global `webhooks:manage` action and rule 5's visibility.
 * Registered on `r`: the app passes its one /v1 router (a nested router costs every request a pass).
 * Changes go to the audit log as the console's do (same actions and details, never a secret or a
 * URL's query string), with the API key as the actor.
 */
export function webhooksRouter(common: Common, policy: DestinationPolicy, writeLimit: RequestHandler, r: Router = Router()): Router {
  const deps: WebhookDeps = { db: common.db, masterKey: common.masterKey, policy };
  const { db } = common;

  const managed = async (req: Parameters<Parameters<typeof r.get>[1]>[0]) => {
    const a = auth(req);
    requireGlobal(a, 'webhooks:manage');
    return { a, row: req.params.id === undefined ? undefined : await getWebhookFor(db, a, parseId(req.params.id, 'webhook id')) };
  };
  const record = (req: Request, a: AuthContext, action: string, webhookId: number, details?: Record<string, unknown>) =>
    audit(db, {
      companyId: a.companyId,
      actorType: 'api_key',
      actorId: a.keyId,
      action,
      ip: req.ip ?? null,
      details: { webhookId, ...details },
    });

  r.post('/webhooks', async (req, res) => {
    const { a } = await managed(req);
    const created = await createWebhook(deps, a, checkBody('WebhookCreateRequest', req.body));
    await record(req, a, 'webhook.created', created.id, webhookAuditDetails(created));
    res.status(201).location(`/v1/webhooks/${created.id}`).json(created);
  });

  r.get('/webhooks', async (req, res) => {
    const { a } = await managed(req);
    res.json({ webhooks: await listWebhooks(deps, a) });
  });

  r.patch('/webhooks/:id', async (req, res) => {
    const { a, row } = await managed(req);
    // Clear answers for the two fields PATCH never takes, before the generic schema message.
    const body = req.body ?? {};
    if (body && typeof body === 'object' && 'type' in body) {
      throw new BaseError('validation_failed', 'type cannot be changed; create a new webhook and delete this one');
    }
    if (body && typeof body === 'object' && 'signingSecret' in body) {
      throw new BaseError('validation_failed', 'signingSecret cannot be set here; use POST /v1/webhooks/:id/rotate-secret');
    }
    const input = checkBody<UpdateWebhookInput>('WebhookUpdateRequest', body);
    const updated = await updateWebhook(deps, a, row!, input);
    await record(req, a, 'webhook.changed', row!.id, { fields: Object.keys(input), ...webhookAuditDetails(updated) });
    res.json(updated);
  });

  r.delete('/webhooks/:id', async (req, res) => {
    const { a, row } = await managed(req);
    await deleteWebhook(db, row!);
    await record(req, a, 'webhook.deleted', row!.id);
    res.status(204).end();
  });

  r.post('/webhooks/:id/rotate-secret', async (req, res) => {
    const { a, row } = await managed(req);
    const body = checkBody<{ signingSecret?: string }>('RotateSecretRequest', req.body);
    const out = await rotateSecret(deps, row!, body.signingSecret);
    // Whether the caller chose the secret or it was generated; never the secret.
    await record(req, a, 'webhook.secret_rotated', row!.id, { chosen: body.signingSecret !== undefined });
    res.setHeader('Cache-Control', 'no-store');
    res.json(out);
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
    res.json({ delivery: await getDelivery(db, row!.id, parseBigId(req.params.deliveryId, 'delivery id')) });
  });

  // Redeliver and replay queue outbound traffic: they count against the per-key write limit.
  r.post('/webhooks/:id/deliveries/:deliveryId/redeliver', writeLimit, async (req, res) => {
    const { a, row } = await managed(req);
    const source = parseBigId(req.params.deliveryId, 'delivery id');
    const { delivery, created } = await redeliver(db, row!, source);
    await record(req, a, 'webhook.redelivered', row!.id, {
      deliveryId: source,
      newDeliveryId: delivery.id,
      eventId: delivery.eventId,
      created,
    });
    // 202: a new delivery is queued; 200: the one already pending for this event is returned.
    res.status(created ? 202 : 200).json({ delivery });
  });

  r.post('/webhooks/:id/replay', writeLimit, async (req, res) => {
    const { a, row } = await managed(req);
    const input = checkBody<ReplayInput>('ReplayRequest', req.body);
    const out = await replay(db, row!, input);
    await record(req, a, 'webhook.replayed', row!.id, { ...input, queued: out.queued, hasMore: out.hasMore });
    res.status(202).json(out);
  });

  // GET /webhooks/:id is not in the spec; answer it anyway, it is what a caller tries first.
  r.get('/webhooks/:id', async (req, res) => {
    const { row } = await managed(req);
    res.json(toWebhookView(common.masterKey, row!));
  });

  return r;
}
