import { randomBytes } from 'node:crypto';
import type { MasterKey } from '@walletd/core';

/** Everything secret about a webhook, sealed at rest under the master key as one envelope. */
export interface WebhookSecrets {
  signingSecret: string;
  /** chat-message (telegram) kind */
  botToken?: string;
  /** slack kind: the incoming-webhook URL is itself a credential */
  url?: string;
}

export const webhookContext = (id: number) => `webhook:${id}`;

/** Standard Webhooks style: `whsec_` + base64 of 32 random bytes (50 characters). */
export const generateSigningSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

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
