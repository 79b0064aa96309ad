import type { WebhookView } from './webhooks';

/**
 * What an audit row says about a webhook: its kind, events, wallets, whether it is on, and where it
 * points, without anything secret. An `api` URL is kept as origin and path: receivers put tokens in
 * query strings. A Slack URL is itself a credential and a Telegram bot token is one, so neither
 * appears even masked (a mask keeps eight of its characters); the Telegram chat id is no secret.
 */
export function webhookAuditDetails(v: Pick<WebhookView, 'type' | 'config' | 'events' | 'walletIds' | 'enabled'>): Record<string, unknown> {
  const base = { type: v.type, events: v.events, walletIds: v.walletIds, enabled: v.enabled };
  if (v.type === 'api' && typeof v.config.url === 'string') {
    const u = new URL(v.config.url);
    return { ...base, destination: `${u.origin}${u.pathname}` };
  }
  if (v.type === 'telegram') return { ...base, destination: `telegram chat ${String(v.config.chatId)}` };
  return { ...base, destination: v.type };
}
