import type { Logger, Metrics } from '@walletd/core';
import type { BreakerChange } from './deliveryStore';

/** Tells the operator about breakers that opened or closed in a recorded batch. */
export function reportBreakerChanges(changes: BreakerChange[], logger: Logger, metrics: Metrics | undefined): void {
  for (const c of changes) {
    if (c.backedOffUntil) {
      metrics?.webhookBackoffs.inc();
      logger.warn(
        { webhookId: c.webhookId, failures: c.failures, backedOffUntil: c.backedOffUntil.toISOString() },
        'webhook endpoint backed off: no attempts to it until then',
      );
    } else if (c.answered && c.wasBackedOff) {
      logger.info({ webhookId: c.webhookId }, 'webhook endpoint answering again');
    }
  }
}
