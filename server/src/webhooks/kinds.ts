import { BaseError } from '@walletd/core';
import type { DestinationPolicy } from './destinationPolicy';
import { mask, type WebhookSecrets } from './secrets/webhookSecrets';

export const WEBHOOK_TYPES = ['api', 'telegram', 'slack'] as const;
export type WebhookType = (typeof WEBHOOK_TYPES)[number];

/** What a kind stores in clear (`config`) and sealed (`secrets`, less the signing secret). */
export interface SplitConfig {
  config: Record<string, unknown>;
  secrets: Omit<WebhookSecrets, 'signingSecret'>;
}

function onlyKeys(config: Record<string, unknown>, allowed: string[]): void {
  for (const k of Object.keys(config)) {
    if (!allowed.includes(k))
      throw new BaseError('validation_failed', `config has an unknown field "${k}"; expected ${allowed.join(', ')}`);
  }
}

/**
 * Validates a kind's whole config (PATCH replaces it whole, so a chat-message webhook sends its
 * bot token again) and splits secret fields from clear ones.
 */
export function splitConfig(type: WebhookType, config: Record<string, unknown>, policy: DestinationPolicy): SplitConfig {
  switch (type) {
    case 'api':
      onlyKeys(config, ['url']);
      return { config: { url: policy.checkUrl(config.url).toString() }, secrets: {} };
    case 'slack':
      onlyKeys(config, ['url']);
      return { config: {}, secrets: { url: policy.checkUrl(config.url).toString() } };
    case 'telegram': {
      onlyKeys(config, ['botToken', 'chatId']);
      const { botToken, chatId } = config;
      if (typeof botToken !== 'string' || !/^[0-9]{3,15}:[A-Za-z0-9_-]{20,100}$/.test(botToken)) {
        throw new BaseError('validation_failed', 'config.botToken must be a Telegram bot token (digits:characters)');
      }
      if (!((typeof chatId === 'string' && /^(-?[0-9]{1,20}|@[A-Za-z0-9_]{5,64})$/.test(chatId)) || Number.isSafeInteger(chatId))) {
        throw new BaseError('validation_failed', 'config.chatId must be a chat id (integer) or @channelname');
      }
      return { config: { chatId }, secrets: { botToken } };
    }
  }
}

/** The config as the API shows it: secret parts masked. */
export function displayConfig(type: string, config: Record<string, unknown>, secrets: WebhookSecrets): Record<string, unknown> {
  if (type === 'telegram') return { ...config, botToken: secrets.botToken ? mask(secrets.botToken) : null };
  if (type === 'slack') return { url: secrets.url ? `${new URL(secrets.url).origin}/…${secrets.url.slice(-4)}` : null };
  return config;
}
