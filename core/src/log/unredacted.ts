import pino from 'pino';
import { isoTime } from './isoTime';
import type { Logger } from './logger';

/**
 * A logger writing to the same destination as `logger`, with its bindings, level and time format,
 * but without the redaction pass: for lines whose every field is chosen by the caller and none is
 * a secret (the API's access log: request id, method, path, address, status, duration).
 *
 * Why: pino runs the redaction paths of REDACT_PATHS (wildcards included) over every object it
 * logs; for the access log line that was about half of the line's cost (9 of 17 µs measured on
 * the 2-core machine, bench/README.md, `api`), on every request, and could never match (none of
 * the line's keys is a redacted one). Anything that may carry a secret keeps the redacting logger.
 */
export function unredactedSibling(logger: Logger): Logger {
  const stream = (logger as unknown as Record<symbol, pino.DestinationStream>)[pino.symbols.streamSym];
  return pino({ level: logger.level, base: logger.bindings(), timestamp: isoTime }, stream);
}
