import type { ConsoleDelivery, ConsoleDeliveryDetail, ConsoleWebhook } from '@walletd/schemas';
import type { Me } from './api';

/** A webhook, a delivery, a delivery in full: the contract in @walletd/schemas. */
export type Webhook = ConsoleWebhook;
export type Delivery = ConsoleDelivery;
export type DeliveryDetail = ConsoleDeliveryDetail;

/** The roles whose table carries `webhooks:manage` (core's ROLE_ACTIONS); the server checks it too. */
export const mayManageWebhooks = (me: Me): boolean => ['owner', 'admin', 'developer'].includes(me.role);

/** "deposit.confirmed, withdrawal.sent" or "*" typed by a person, as the API's list. */
export const parseEvents = (text: string): string[] =>
  text
    .split(/[\s,]+/)
    .map((e) => e.trim())
    .filter(Boolean);

/** Where a webhook points, for a table cell. */
export function destination(w: Webhook): string {
  if (w.type === 'api') return w.config.url ?? '';
  if (w.type === 'telegram') return `Telegram chat ${String(w.config.chatId)}`;
  return `Slack ${w.config.url ?? ''}`;
}

/** The endpoint's circuit breaker in words. */
export function health(w: Webhook): string {
  const d = w.delivery;
  if (d.backedOffUntil)
    return `${d.consecutiveFailures} failures in a row, backed off until ${new Date(d.backedOffUntil).toLocaleString()}`;
  if (d.consecutiveFailures > 0) return `${d.consecutiveFailures} failure${d.consecutiveFailures > 1 ? 's' : ''} in a row`;
  return 'healthy';
}
