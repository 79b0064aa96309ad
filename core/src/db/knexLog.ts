import { inspect } from 'node:util';
import type { Knex } from 'knex';
import type { Logger } from '../log/logger';

/** How long repeats of one pool warning are folded into a count (the database down for minutes). */
export const KNEX_REPEAT_WINDOW_MS = 30_000;

/**
 * knex writes its own warnings (pool acquisition failures, deprecations) with console.log,
 * coloured, one text line per message: routed here they are pino JSON lines like every other.
 * While the database is down every role's pool warns "Acquire connection error" with a stack about
 * twice a second (issue 29: hundreds of lines a minute hiding the one that says why): the first
 * line of such a warning is logged once, then repeats are counted and written once per window.
 */
export function knexLog(logger: Logger, now: () => number = Date.now): Knex.Logger {
  const log = logger.child({ component: 'knex' });
  const text = (message: unknown) => (typeof message === 'string' ? message : inspect(message, { depth: 3, colors: false }));
  const seen = new Map<string, { since: number; repeats: number }>();
  const warn = (message: unknown) => {
    const full = text(message);
    // The first line says what failed; the stack under it is the same every time.
    const head = full.split('\n', 1)[0] ?? full;
    const at = now();
    const last = seen.get(head);
    if (last && at - last.since < KNEX_REPEAT_WINDOW_MS) {
      last.repeats += 1;
      return;
    }
    if (last && last.repeats > 0)
      log.warn({ repeats: last.repeats }, `${head} (repeated ${last.repeats} times in the last ${Math.round((at - last.since) / 1000)} s)`);
    else log.warn(head);
    seen.set(head, { since: at, repeats: 0 });
    if (seen.size > 100) seen.delete(seen.keys().next().value as string);
  };
  return {
    warn,
    error: (message: unknown) => log.error(text(message)),
    debug: (message: unknown) => log.debug(text(message)),
    deprecate: (method: string, alternative: string) => log.warn(`${method} is deprecated; use ${alternative}`),
  };
}
