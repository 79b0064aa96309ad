/**
 * Whether an error means "the database cannot be reached right now" (retry later) rather than a
 * bug or a bad query. The API answers these 503 `unavailable` with Retry-After instead of 500.
 *
 * - socket errors from node-postgres connecting or mid-query (ECONNREFUSED, ECONNRESET, …);
 * - node-postgres' own "Connection terminated" errors, which carry no code;
 * - SQLSTATE class 08 (connection exception), 57P01-57P03 (the server shutting down, crashed or
 *   starting up) and 53300 (too many connections);
 * - pg's `query_timeout` ("Query read timeout": a server that never answered);
 * - knex's pool acquisition timeout (every connection busy or none can be made).
 * Wrapped errors (`cause`, AggregateError from dual-stack connects) are looked through.
 */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 5) return false;
  const e = err as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : '';
  if (SOCKET_CODES.has(code) || SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
  if (message.startsWith('Connection terminated')) return true;
  // pg's client-side deadline (`database.queryTimeoutMs`): the server did not answer the statement.
  if (message === 'Query read timeout') return true;
  if (e.name === 'KnexTimeoutError' && message.includes('acquiring a connection')) return true;
  if (Array.isArray(e.errors) && e.errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) return true;
  return isDatabaseUnavailable(e.cause, depth + 1);
}
