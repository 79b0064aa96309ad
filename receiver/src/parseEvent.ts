import { EVENT_TYPES, type WalletdEvent } from './events.generated';
import { assertRawBody } from './rawBody';

/** The body is not a walletd event. */
export class WalletdEventError extends Error {
  override name = 'WalletdEventError';
}

const KNOWN_TYPES: ReadonlySet<string> = new Set(EVENT_TYPES);

/**
 * Parses a webhook body (verify its signature first) and checks its shape cheaply: an object with
 * a string `id`, a `type` walletd sends and a `data` object. Throws WalletdEventError otherwise. It
 * does not validate every field; the event's types are those of the JSON Schemas.
 */
export function parseEvent(rawBody: string | Uint8Array): WalletdEvent {
  assertRawBody(rawBody);
  const text = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength).toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new WalletdEventError(`walletd event: the body is not JSON (${(err as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new WalletdEventError('walletd event: the body is not a JSON object');
  const event = value as Record<string, unknown>;
  if (typeof event.id !== 'string' || event.id === '') throw new WalletdEventError('walletd event: "id" is missing or not a string');
  if (typeof event.type !== 'string' || !KNOWN_TYPES.has(event.type)) {
    throw new WalletdEventError(`walletd event: unknown "type" ${JSON.stringify(event.type)} (expected one of ${EVENT_TYPES.join(', ')})`);
  }
  if (typeof event.data !== 'object' || event.data === null || Array.isArray(event.data)) {
    throw new WalletdEventError('walletd event: "data" is missing or not an object');
  }
  return value as WalletdEvent;
}
