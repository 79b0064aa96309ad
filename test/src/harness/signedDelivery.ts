import { SIGNATURE_HEADER, verifySignature, verifyStandardWebhook } from '@walletd/receiver';
import type { ReceivedRequest } from './receiver';

/**
 * What a receiver that uses @walletd/receiver concludes about one request walletd posted: both
 * signatures verify with the webhook's secret, the Standard Webhooks timestamp is signed (one
 * second off fails) and current (the same request replayed past the 300 s window fails), and
 * another secret verifies neither. All true for a genuine delivery.
 */
export function signatureChecks(r: ReceivedRequest, secret: string) {
  const at = new Date(r.at);
  const timestamp = Number(r.headers['webhook-timestamp']);
  const shifted = { ...r.headers, 'webhook-timestamp': String(timestamp + 1) };
  return {
    serviceSignature: verifySignature(secret, r.rawBody, r.headers[SIGNATURE_HEADER] as string | undefined),
    standardWebhooks: verifyStandardWebhook(secret, r.headers, r.rawBody, { now: at }),
    idIsTheEventId: r.headers['webhook-id'] === (JSON.parse(r.rawBody) as { id: string }).id,
    timestampSigned: !verifyStandardWebhook(secret, shifted, r.rawBody, { now: at }),
    replayRefused: !verifyStandardWebhook(secret, r.headers, r.rawBody, { now: new Date(r.at + 301_000) }),
    otherSecretRefused:
      !verifySignature(`${secret}x`, r.rawBody, r.headers[SIGNATURE_HEADER] as string | undefined) &&
      !verifyStandardWebhook(`${secret}x`, r.headers, r.rawBody, { now: at }),
  };
}

/** The value `signatureChecks` gives for a genuine delivery. */
export const GENUINE = {
  serviceSignature: true,
  standardWebhooks: true,
  idIsTheEventId: true,
  timestampSigned: true,
  replayRefused: true,
  otherSecretRefused: true,
};
