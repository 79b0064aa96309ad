/**
 * Throws a TypeError unless `rawBody` is a string or bytes: an object here means a JSON body parser
 * ran before the signature check, and no signature can match re-serialized JSON.
 */
export function assertRawBody(rawBody: unknown): asserts rawBody is string | Uint8Array {
  if (typeof rawBody === 'string' || rawBody instanceof Uint8Array) return;
  const got = rawBody === null ? 'null' : typeof rawBody;
  throw new TypeError(`rawBody must be the request body as received (a string or bytes), not ${got}: read it raw, before any JSON parsing`);
}
