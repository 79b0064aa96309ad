import { BaseError, PLAN_LIMITS, type Db, type MasterKey } from '@walletd/core';
import type { Knex } from 'knex';
import type { AuthContext } from '../http/authContext';
import { keySeesAllWallets, keySeesWallet } from '../http/scope';
import type { DestinationPolicy } from './destinationPolicy';
import { displayConfig, splitConfig, type WebhookType } from './kinds';
import {
  checkSigningSecret,
  generateSigningSecret,
  openWebhookSecrets,
  replaceSecrets,
  sealWebhookSecrets,
} from './secrets/webhookSecrets';

export interface WebhookRow {
  id: number;
  company_id: number;
  type: WebhookType;
  config: Record<string, unknown>;
  events: string[];
  wallet_ids: number[];
  enabled: boolean;
  secret_envelope: unknown;
  created_at: Date;
  updated_at: Date;
  /** The endpoint's circuit breaker (migration 016). */
  consecutive_failures?: number;
  backed_off_until?: Date | null;
}

export interface WebhookView {
  id: number;
  type: string;
  config: Record<string, unknown>;
  events: string[];
  walletIds: number[];
  enabled: boolean;
  delivery: { consecutiveFailures: number; backedOffUntil: string | null };
  createdAt: string;
  updatedAt: string;
}

/**
 * Who manages webhooks: an API key (its AuthContext) or a console member, who sees every wallet of
 * the company and has no key (`keyId` null: `created_by_key` stays empty, the audit row names them).
 */
export type WebhookCaller = Pick<AuthContext, 'companyId' | 'walletIds'> & { keyId: number | null };

export interface WebhookDeps {
  db: Db;
  masterKey: MasterKey;
  policy: DestinationPolicy;
}

export function toWebhookView(masterKey: MasterKey, r: WebhookRow): WebhookView {
  return {
    id: r.id,
    type: r.type,
    config: displayConfig(r.type, r.config, openWebhookSecrets(masterKey, r.id, r.secret_envelope)),
    events: r.events,
    walletIds: r.wallet_ids,
    enabled: r.enabled,
    delivery: endpointState(r),
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

/** What the dispatcher's circuit breaker holds for this endpoint now (a back-off that ended is none). */
function endpointState(r: WebhookRow): WebhookView['delivery'] {
  const until = r.backed_off_until && r.backed_off_until.getTime() > Date.now() ? r.backed_off_until.toISOString() : null;
  return { consecutiveFailures: r.consecutive_failures ?? 0, backedOffUntil: until };
}

/** Rule 5: a webhook is the caller's to see only if the caller sees every wallet it is scoped to. */
export function keySeesWebhook(ctx: WebhookCaller, r: Pick<WebhookRow, 'wallet_ids'>): boolean {
  return r.wallet_ids.length === 0 ? keySeesAllWallets(ctx) : r.wallet_ids.every((id) => keySeesWallet(ctx, id));
}

/** Rules 3 and 4: every id a wallet the caller sees; "all wallets" only for a caller who sees all. */
async function checkWalletIds(db: Db | Knex.Transaction, ctx: WebhookCaller, walletIds: number[]): Promise<void> {
  if (walletIds.length === 0) {
    if (!keySeesAllWallets(ctx)) {
      throw new BaseError('forbidden', 'A webhook for all wallets (empty walletIds) needs a key that can see every wallet');
    }
    return;
  }
  const found = await db('wallets').where({ company_id: ctx.companyId }).whereNull('deleted_at').whereIn('id', walletIds).pluck('id');
  const unseen = walletIds.filter((id) => !found.includes(id) || !keySeesWallet(ctx, id));
  if (unseen.length) throw new BaseError('validation_failed', `walletIds: wallet ${unseen.join(', ')} not found`);
}

export async function getWebhookFor(db: Db, ctx: WebhookCaller, id: number): Promise<WebhookRow> {
  const row = (await db('webhooks').where({ id, company_id: ctx.companyId }).whereNull('deleted_at').first()) as WebhookRow | undefined;
  if (!row || !keySeesWebhook(ctx, row)) throw new BaseError('not_found', 'Webhook not found');
  return row;
}

export interface CreateWebhookInput {
  type: WebhookType;
  config: Record<string, unknown>;
  events: string[];
  walletIds?: number[];
  signingSecret?: string;
  enabled?: boolean;
}

export async function createWebhook(
  deps: WebhookDeps,
  ctx: WebhookCaller,
  input: CreateWebhookInput,
): Promise<WebhookView & { signingSecret: string }> {
  const { db, masterKey, policy } = deps;
  const walletIds = input.walletIds ?? [];
  if (input.signingSecret !== undefined) checkSigningSecret(input.signingSecret);
  await checkWalletIds(db, ctx, walletIds);
  const split = splitConfig(input.type, input.config, policy);
  const signingSecret = input.signingSecret ?? generateSigningSecret();
  return db.transaction(async (trx) => {
    const company = await trx('companies').where({ id: ctx.companyId }).forUpdate().first('plan');
    const cap = company.plan === 'free' ? PLAN_LIMITS.free.maxWebhooks : null;
    if (cap !== null) {
      const [{ n }] = (await trx('webhooks').where({ company_id: ctx.companyId }).whereNull('deleted_at').count('* as n')) as [
        { n: string },
      ];
      if (Number(n) >= cap) throw new BaseError('plan_cap_reached', `the free plan allows at most ${cap} webhooks`);
    }
    const { rows } = await trx.raw(`select nextval(pg_get_serial_sequence('webhooks', 'id'))::int as id`);
    const id = rows[0].id as number;
    const [row] = await trx('webhooks')
      .insert({
        id,
        company_id: ctx.companyId,
        type: input.type,
        config: split.config,
        events: input.events,
        wallet_ids: walletIds,
        enabled: input.enabled ?? true,
        secret_envelope: sealWebhookSecrets(masterKey, id, { signingSecret, ...split.secrets }),
        created_by_key: ctx.keyId,
      })
      .returning('*');
    return { ...toWebhookView(masterKey, row as WebhookRow), signingSecret };
  });
}

export async function listWebhooks(deps: WebhookDeps, ctx: WebhookCaller): Promise<WebhookView[]> {
  const rows = (await deps.db('webhooks').where({ company_id: ctx.companyId }).whereNull('deleted_at').orderBy('id')) as WebhookRow[];
  return rows.filter((r) => keySeesWebhook(ctx, r)).map((r) => toWebhookView(deps.masterKey, r));
}

export interface UpdateWebhookInput {
  config?: Record<string, unknown>;
  events?: string[];
  walletIds?: number[];
  enabled?: boolean;
}

export async function updateWebhook(
  deps: WebhookDeps,
  ctx: WebhookCaller,
  row: WebhookRow,
  input: UpdateWebhookInput,
): Promise<WebhookView> {
  const { db, masterKey, policy } = deps;
  if (input.walletIds !== undefined) await checkWalletIds(db, ctx, input.walletIds);
  const split = input.config !== undefined ? splitConfig(row.type, input.config, policy) : undefined;
  // Under the row lock: a concurrent rotation or PATCH cannot bring back a secret it replaced.
  return db.transaction(async (trx) => {
    const current = (await trx('webhooks').where({ id: row.id }).whereNull('deleted_at').forUpdate().first()) as WebhookRow | undefined;
    if (!current) throw new BaseError('not_found', 'Webhook not found');
    const patch: Record<string, unknown> = { updated_at: trx.fn.now() };
    if (input.walletIds !== undefined) patch.wallet_ids = input.walletIds;
    if (input.events !== undefined) patch.events = input.events;
    if (input.enabled !== undefined) patch.enabled = input.enabled;
    if (split) {
      // Replaced whole (rule 1); waiting deliveries read it at send time (rule 6). A bot token or
      // Slack URL it replaces is kept sealed for redaction.
      const secrets = openWebhookSecrets(masterKey, row.id, current.secret_envelope);
      patch.config = split.config;
      // A new destination is a new endpoint: its circuit breaker starts closed (issue 29).
      Object.assign(patch, { consecutive_failures: 0, backoffs: 0, backed_off_at: null, backed_off_until: null });
      patch.secret_envelope = sealWebhookSecrets(
        masterKey,
        row.id,
        replaceSecrets(secrets, { signingSecret: secrets.signingSecret, ...split.secrets }),
      );
    }
    const [updated] = await trx('webhooks').where({ id: row.id }).update(patch).returning('*');
    return toWebhookView(masterKey, updated as WebhookRow);
  });
}

export async function rotateSecret(
  deps: WebhookDeps,
  row: WebhookRow,
  signingSecret?: string,
): Promise<{ id: number; signingSecret: string }> {
  if (signingSecret !== undefined) checkSigningSecret(signingSecret);
  const next = signingSecret ?? generateSigningSecret();
  return deps.db.transaction(async (trx) => {
    const current = (await trx('webhooks').where({ id: row.id }).whereNull('deleted_at').forUpdate().first()) as WebhookRow | undefined;
    if (!current) throw new BaseError('not_found', 'Webhook not found');
    const secrets = openWebhookSecrets(deps.masterKey, row.id, current.secret_envelope);
    await trx('webhooks')
      .where({ id: row.id })
      .update({
        // The replaced secret stays sealed in `previous`: a receiver may still echo it.
        secret_envelope: sealWebhookSecrets(deps.masterKey, row.id, replaceSecrets(secrets, { ...secrets, signingSecret: next })),
        updated_at: trx.fn.now(),
      });
    return { id: row.id, signingSecret: next };
  });
}

/** Soft delete; deliveries still waiting end `failed` so the log tells what happened to them. */
export async function deleteWebhook(db: Db, row: WebhookRow): Promise<void> {
  await db.transaction(async (trx) => {
    await trx('webhooks').where({ id: row.id }).update({ deleted_at: trx.fn.now(), enabled: false, updated_at: trx.fn.now() });
    await trx('webhook_deliveries')
      .where({ webhook_id: row.id, status: 'pending' })
      .update({ status: 'failed', last_error: 'webhook deleted', updated_at: trx.fn.now() });
  });
}
