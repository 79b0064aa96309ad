import { randomBytes } from 'node:crypto';
import { BaseError, type MasterKey } from '@walletd/core';

/** A signing secret, bot token or Slack URL the webhook no longer uses. */
export type RetiredSecret = { signingSecret: string } | { botToken: string } | { url: string };

/** Everything secret about a webhook, sealed at rest under the master key as one envelope. */
export interface WebhookSecrets {
  signingSecret: string;
  /** chat-message (telegram) kind */
  botToken?: string;
  /** slack kind: the incoming-webhook URL is itself a credential */
  url?: string;
  /**
   * Secrets it had before, newest first: a receiver still configured with one may echo it, and
   * deliveries are kept for good, so each is redacted like a current one. Sealed with the rest.
   */
  previous?: RetiredSecret[];
}

/** How many replaced secrets a webhook keeps for redaction (rotations and config changes together). */
export const MAX_PREVIOUS_SECRETS = 16;

/**
 * The envelope once `next`'s secrets replace `current`'s (`next.previous` is ignored): those it
 * changes join `previous` (newest first, at most MAX_PREVIOUS_SECRETS), so a rotation or a PATCH
 * never forgets what to redact.
 */
export function replaceSecrets(current: WebhookSecrets, next: WebhookSecrets): WebhookSecrets {
  const retired: RetiredSecret[] = [];
  if (current.signingSecret !== next.signingSecret) retired.push({ signingSecret: current.signingSecret });
  if (current.botToken && current.botToken !== next.botToken) retired.push({ botToken: current.botToken });
  if (current.url && current.url !== next.url) retired.push({ url: current.url });
  const previous = [...retired, ...(current.previous ?? [])].slice(0, MAX_PREVIOUS_SECRETS);
  const out: WebhookSecrets = { signingSecret: next.signingSecret };
  if (next.botToken) out.botToken = next.botToken;
  if (next.url) out.url = next.url;
  if (previous.length > 0) out.previous = previous;
  return out;
}

export const webhookContext = (id: number) => `webhook:${id}`;

/** Standard Webhooks style: `whsec_` + base64 of 32 random bytes (50 characters). */
export const generateSigningSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** A caller-chosen signing secret needs this many characters that are not whitespace... */
export const MIN_SECRET_NON_SPACE = 16;
/** ...of at least this many different ones (16 spaces or one letter repeated is no secret). */
export const MIN_SECRET_DISTINCT = 8;

/** The schema checks the length (16-256); this refuses what has the length but no entropy. */
export function checkSigningSecret(secret: string): void {
  const chars = [...secret].filter((c) => !/\s/u.test(c));
  if (chars.length < MIN_SECRET_NON_SPACE || new Set(chars).size < MIN_SECRET_DISTINCT) {
    throw new BaseError(
      'validation_failed',
      `signingSecret must have at least ${MIN_SECRET_NON_SPACE} characters other than whitespace, at least ${MIN_SECRET_DISTINCT} of them different; omit it to have one generated`,
    );
  }
}

export function sealWebhookSecrets(masterKey: MasterKey, id: number, secrets: WebhookSecrets) {
  return masterKey.seal(Buffer.from(JSON.stringify(secrets)), webhookContext(id));
}

export function openWebhookSecrets(masterKey: MasterKey, id: number, envelope: unknown): WebhookSecrets {
  return JSON.parse(masterKey.open(envelope as never, webhookContext(id)).toString('utf8')) as WebhookSecrets;
}

/** Shows enough of a credential to recognise it, never enough to use it. */
export function mask(secret: string): string {
  return secret.length <= 8 ? '…' : `${secret.slice(0, 4)}…${secret.slice(-4)}`;
}
