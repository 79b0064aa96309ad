/**
 * Whether an error means the disk under the database (or under walletd's data directory) is full,
 * so the operator reads one line, "disk full on <path>", instead of a failed statement's SQL:
 * - PostgreSQL's SQLSTATE 53100 `disk_full` (a relation or WAL file could not be extended or written);
 * - Node's ENOSPC (walletd's own files: the cluster lock, the owner file);
 * - "No space left on device" in a message (PostgreSQL's FATAL/PANIC lines and pg_ctl's output
 *   carry the text but no SQLSTATE; knex prefixes the statement to the server's message).
 * Wrapped errors (`cause`, AggregateError) are looked through.
 */
export function isDiskFull(err: unknown, depth = 0): boolean {
  if (!err || depth > 5) return false;
  if (typeof err === 'string') return NO_SPACE.test(err);
  if (typeof err !== 'object') return false;
  const e = err as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (e.code === '53100' || e.code === 'ENOSPC') return true;
  if (typeof e.message === 'string' && NO_SPACE.test(e.message)) return true;
  if (Array.isArray(e.errors) && e.errors.some((inner) => isDiskFull(inner, depth + 1))) return true;
  return isDiskFull(e.cause, depth + 1);
}

const NO_SPACE = /No space left on device|disk full/i;

/** The one line an operator reads, for the data directory `path`. */
export const diskFullMessage = (path: string): string => `disk full on ${path}`;
