import { type Db, type Envelope, type MasterKey, runPrepared } from '@walletd/core';
import { type Redactor, redactorFor } from './redactSecrets';
import { openWebhookSecrets, type WebhookSecrets } from './webhookSecrets';

/** Shorter than this, an answer cannot hold a secret (redactSecrets' MIN_SECRET): no lookup. */
const MIN_TEXT = 4;

const SIBLINGS = {
  name: 'walletd_sibling_webhook_secrets',
  text: `select id, secret_envelope from webhooks
          where company_id = (select company_id from webhooks where id = $1) and id <> $1
          order by id`,
};

/**
 * The secrets of the company's OTHER webhooks (deleted ones too), redacted from what one webhook's
 * receiver answered: a receiver that knows or echoes another webhook's secret must not have it
 * stored raw in the deliveries log. Read at answer time (one indexed query, only for an answer long
 * enough to hold a secret), compiled once per set of envelopes: a rotation or a new webhook applies
 * to the next answer.
 */
export function siblingRedactors(db: Db, masterKey: MasterKey): (webhookId: number, text: string | null) => Promise<Redactor | null> {
  const cache = new Map<number, { fingerprint: string; redact: Redactor | null }>();
  return async (webhookId, text) => {
    if (text === null || text.length < MIN_TEXT) return null;
    // A named statement: asked once per answer, so neither built by knex nor planned each time.
    const rows = await runPrepared<{ id: number; secret_envelope: Envelope }>(db, SIBLINGS, [webhookId]);
    const fingerprint = rows.map((r) => `${r.id}:${r.secret_envelope.ct}`).join(',');
    const known = cache.get(webhookId);
    if (known && known.fingerprint === fingerprint) return known.redact;
    const each = rows.map((r) => redactorFor(openWebhookSecrets(masterKey, r.id, r.secret_envelope) as WebhookSecrets));
    const redact: Redactor | null = each.length ? (s, cutAtEnd) => each.reduce((out, r) => r(out, cutAtEnd), s) : null;
    cache.set(webhookId, { fingerprint, redact });
    return redact;
  };
}
