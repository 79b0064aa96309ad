/**
 * Webhooks and their deliveries as `/console/api/webhooks` answers them (the /v1 views: secrets
 * never, health always). Types only (see ../views.ts).
 */

/** A webhook (the /v1 view). */
export interface ConsoleWebhook {
  id: number;
  type: 'api' | 'telegram' | 'slack';
  config: { url?: string; chatId?: string | number; botToken?: string | null };
  events: string[];
  walletIds: number[];
  enabled: boolean;
  delivery: { consecutiveFailures: number; backedOffUntil: string | null };
  createdAt: string;
  updatedAt: string;
}

/** One delivery as the list shows it. */
export interface ConsoleDelivery {
  id: number;
  webhookId: number;
  eventId: string;
  eventType: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  responseCode: number | null;
  lastError: string | null;
  nextAttemptAt?: string;
  createdAt: string;
  updatedAt: string;
}

/** One delivery in full: the exact JSON posted and the receiver's answer (truncated, secrets redacted). */
export interface ConsoleDeliveryDetail extends ConsoleDelivery {
  payload: unknown;
  responseBody: string | null;
}

/** A page of deliveries, newest first; `next` is the `before` of the following page. */
export interface ConsoleDeliveryPage {
  data: ConsoleDelivery[];
  next: string | null;
}
