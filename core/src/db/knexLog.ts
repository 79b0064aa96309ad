import { inspect } from 'node:util';
import type { Knex } from 'knex';
import type { Logger } from '../log/logger';

/**
 * knex writes its own warnings (pool acquisition failures, deprecations) with console.log,
 * coloured, one text line per message: routed here they are pino JSON lines like every other.
 */
export function knexLog(logger: Logger): Knex.Logger {
  const log = logger.child({ component: 'knex' });
  const text = (message: unknown) => (typeof message === 'string' ? message : inspect(message, { depth: 3, colors: false }));
  return {
    warn: (message: unknown) => log.warn(text(message)),
    error: (message: unknown) => log.error(text(message)),
    debug: (message: unknown) => log.debug(text(message)),
    deprecate: (method: string, alternative: string) => log.warn(`${method} is deprecated; use ${alternative}`),
  };
}
