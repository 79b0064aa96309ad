import type {
  ConsoleDelivery,
  ConsoleDeliveryDetail,
  ConsoleDeliveryPage,
  ConsoleWebhook,
  NoUndeclared,
  Undeclared,
} from '@walletd/schemas';
import type { Request, RequestHandler, Router } from 'express';
import { BaseError } from '@walletd/core';
import type { Common } from '../platform/context';
import { checkBody } from '../http/body';
import { parseBigId, parseId } from '../http/scope';
import { getDelivery, listDeliveries, redeliver, replay, type DeliveryFilter, type ReplayInput } from './deliveries';
import {
  createWebhook,
  deleteWebhook,
  getWebhookFor,
  listWebhooks,
  rotateSecret,
  toWebhookView,
  updateWebhook,
  type CreateWebhookInput,
  type UpdateWebhookInput,
  type WebhookView,
  type WebhookCaller,
  type WebhookDeps,
} from './webhooks';
import { DestinationPolicy } from './destinationPolicy';
import { auditMember } from '../members/signIn/auditSignIn';
import type { Clock } from '../platform/clock';
import { requireMfaEnrolled, requireRoleAction } from '../members/sessions/memberGuards';
import { requireStepUp } from '../members/sessions/sessions';
import { webhookAuditDetails } from './webhookAudit';

const STATUSES = new Set(['pending', 'delivered', 'failed']);
const PAGE_MAX = 100;

function deliveryFilter(q: Request['query']): { limit: number; filter: DeliveryFilter } {
  let limit = 25;
  if (q.limit !== undefined) {
    if (typeof q.limit !== 'string' || !/^[0-9]{1,3}$/.test(q.limit) || Number(q.limit) < 1 || Number(q.limit) > PAGE_MAX)
      throw new BaseError('validation_failed', `limit must be an integer from 1 to ${PAGE_MAX}`);
    limit = Number(q.limit);
  }
  const filter: DeliveryFilter = {};
  if (q.status !== undefined) {
    if (typeof q.status !== 'string' || !STATUSES.has(q.status))
      throw new BaseError('validation_failed', 'status must be one of pending, delivered, failed');
    filter.status = q.status as DeliveryFilter['status'];
  }
  if (q.before !== undefined) filter.before = parseBigId(q.before, 'before');
  return { limit, filter };
}

/**
 * The contract declares exactly the fields the builders send (WebhookView types `type` and `config`
 * loosely; the contract names their values): a field added on either side fails the build.
 */
export type WebhookViewDeclared = NoUndeclared<Undeclared<ConsoleWebhook, WebhookView> | Undeclared<WebhookView, ConsoleWebhook>>;
export type DeliveryViewDeclared = NoUndeclared<Undeclared<ConsoleDeliveryDetail, Awaited<ReturnType<typeof getDelivery>>>>;
export type DeliveryListDeclared = NoUndeclared<Undeclared<ConsoleDelivery, Awaited<ReturnType<typeof listDeliveries>>[number]>>;

/**
 * Webhooks and their deliveries log (`/console/api/webhooks`), through the same services and body
 * schemas as /v1/webhooks (URL and destination rules included). Every route, reads too, needs a
 * role with `webhooks:manage` (owner, admin, developer): the list shows where the company's events
 * go and the deliveries log carries their payloads, which /v1 gives only to keys with that action,
 * so a viewer gets 403 here as well. Changes are audited with the member and IP, never a secret.
 * The new signing secret is in the answer to create and rotate only; no other answer carries it.
 * Create, a new URL, rotation and delete need a step-up.
 */
export function mountWebhookRoutes(r: Router, common: Common, clock: Clock, session: RequestHandler): void {
  const { db, masterKey } = common;
  // Where the company's events go and how they are signed: a stolen session must not redirect the
  // stream or take over its signature, so these need a fresh authenticator code (checked last,
  // after every cheaper refusal, so a refused change spends no code).
  const steppedUp = (req: Request) => requireStepUp(req.memberSession!, clock(), common.config.console.stepUpMs);
  const deps: WebhookDeps = { db, masterKey, policy: new DestinationPolicy(common.config.webhooks.allowCidrs) };
  const enrolled = requireMfaEnrolled(db);
  const manage: RequestHandler = (req, _res, next) => {
    try {
      requireRoleAction(req.memberSession!, 'webhooks:manage', 'manage webhooks; owners, admins and developers may');
      next();
    } catch (e) {
      next(e);
    }
  };
  const guard = [session, manage, enrolled];
  // A member is not scoped to wallets and has no API key.
  const caller = (req: Request): WebhookCaller => ({ companyId: req.memberSession!.companyId, walletIds: null, keyId: null });
  const hook = (req: Request) => getWebhookFor(db, caller(req), parseId(req.params.id, 'webhook id'));
  const record = (req: Request, action: string, webhookId: number, details?: Record<string, unknown>) =>
    auditMember(db, req.memberSession!, action, req.ip ?? null, { webhookId, ...details });

  r.get('/webhooks', ...guard, async (req, res) => {
    res.json({ data: await listWebhooks(deps, caller(req)) });
  });

  r.post('/webhooks', ...guard, async (req, res) => {
    const input = checkBody<CreateWebhookInput>('WebhookCreateRequest', req.body);
    steppedUp(req);
    const created = await createWebhook(deps, caller(req), input);
    const { signingSecret, ...view } = created;
    await record(req, 'webhook.created', created.id, webhookAuditDetails(view));
    res.setHeader('Cache-Control', 'no-store');
    res.status(201).json({ webhook: view, signingSecret });
  });

  r.get('/webhooks/:id', ...guard, async (req, res) => {
    res.json(toWebhookView(masterKey, await hook(req)));
  });

  r.patch('/webhooks/:id', ...guard, async (req, res) => {
    const row = await hook(req);
    const body = req.body ?? {};
    if (body && typeof body === 'object' && 'signingSecret' in body)
      throw new BaseError('validation_failed', 'signingSecret cannot be set here; use rotate-secret');
    const input = checkBody<UpdateWebhookInput>('WebhookUpdateRequest', body);
    if (input.config !== undefined) steppedUp(req);
    const updated = await updateWebhook(deps, caller(req), row, input);
    await record(req, 'webhook.changed', row.id, { fields: Object.keys(input), ...webhookAuditDetails(updated) });
    res.json(updated);
  });

  r.delete('/webhooks/:id', ...guard, async (req, res) => {
    const row = await hook(req);
    steppedUp(req);
    await deleteWebhook(db, row);
    await record(req, 'webhook.deleted', row.id);
    res.status(204).end();
  });

  r.post('/webhooks/:id/rotate-secret', ...guard, async (req, res) => {
    const row = await hook(req);
    const body = checkBody<{ signingSecret?: string }>('RotateSecretRequest', req.body);
    steppedUp(req);
    const out = await rotateSecret(deps, row, body.signingSecret);
    // Whether the member chose the secret or it was generated; never the secret.
    await record(req, 'webhook.secret_rotated', row.id, { chosen: body.signingSecret !== undefined });
    res.setHeader('Cache-Control', 'no-store');
    res.json(out);
  });

  r.get('/webhooks/:id/deliveries', ...guard, async (req, res) => {
    const row = await hook(req);
    const { limit, filter } = deliveryFilter(req.query);
    // One more than the page: whether an older page exists, without counting.
    const rows = await listDeliveries(db, row.id, limit + 1, filter);
    const page = rows.slice(0, limit);
    const answer: ConsoleDeliveryPage = { data: page, next: rows.length > limit ? String(page[page.length - 1]!.id) : null };
    res.json(answer);
  });

  r.get('/webhooks/:id/deliveries/:deliveryId', ...guard, async (req, res) => {
    const row = await hook(req);
    const detail: ConsoleDeliveryDetail = await getDelivery(db, row.id, parseBigId(req.params.deliveryId, 'delivery id'));
    res.json(detail);
  });

  r.post('/webhooks/:id/deliveries/:deliveryId/redeliver', ...guard, async (req, res) => {
    const row = await hook(req);
    const source = parseBigId(req.params.deliveryId, 'delivery id');
    const { delivery, created } = await redeliver(db, row, source);
    await record(req, 'webhook.redelivered', row.id, {
      deliveryId: source,
      newDeliveryId: delivery.id,
      eventId: delivery.eventId,
      created,
    });
    res.status(created ? 202 : 200).json({ delivery, created });
  });

  r.post('/webhooks/:id/replay', ...guard, async (req, res) => {
    const row = await hook(req);
    const input = checkBody<ReplayInput>('ReplayRequest', req.body);
    const out = await replay(db, row, input);
    await record(req, 'webhook.replayed', row.id, { ...input, queued: out.queued, hasMore: out.hasMore });
    res.status(202).json(out);
  });
}
