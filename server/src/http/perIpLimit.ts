import type { RequestHandler } from 'express';
import { ipKeyGenerator } from 'express-rate-limit';
import { BaseError, type Db, hashApiKey, isWellFormedApiKey, type PreparedStatement, runPrepared } from '@walletd/core';
import { keyRowSql } from './keyRow';

/**
 * The per-IP ceiling of spec 8 (every endpoint, counted before authentication), exact across API
 * processes: a fixed-window counter in PostgreSQL (`rate_limit_hits`, unlogged since migration 011)
 * incremented by one upsert per request, windows aligned to the database clock.
 *
 * Measured (`npm run bench -- api`): the limiter's round trip and the key lookup were two of the
 * authenticated read's three queries. When the request carries a well-formed API key for /v1, the
 * same statement also reads the key's row (`req.prefetchedKey`), so `authenticate` asks nothing
 * more: one round trip for the limit and the key, as the key lookup alone would cost. Both
 * statements are prepared per connection (core's runPrepared): they run on every request.
 */
export interface PerIpLimiter extends RequestHandler {
  shutdown(): void;
}

declare module 'express-serve-static-core' {
  interface Request {
    /**
     * The key row read with the rate-limit hit, for the bearer token of this very request (checked
     * well formed and hashed once, here): `text` as keyRow.ts reads it, null when no key has this hash.
     */
    prefetchedKey?: { bearer: string; text: string | null };
  }
}

/** Windows of one minute, aligned to the database clock (a constant: it is part of the statements' text). */
const WINDOW_SECONDS = 60;

const HIT_SQL = `insert into rate_limit_hits (key, window_start, hits)
  values ($1, to_timestamp(floor(extract(epoch from now()) / ${WINDOW_SECONDS}) * ${WINDOW_SECONDS}), 1)
  on conflict (key, window_start) do update set hits = rate_limit_hits.hits + 1
  returning hits, greatest(1, ceil(extract(epoch from window_start + make_interval(secs => ${WINDOW_SECONDS}) - now())))::int as reset_in`;

const HIT: PreparedStatement = { name: 'walletd_ip_hit_v2', text: HIT_SQL };
const HIT_AND_KEY: PreparedStatement = {
  name: 'walletd_ip_hit_key_json',
  text: `with hit as (${HIT_SQL}) select hit.hits, hit.reset_in, key.key from hit left join (${keyRowSql('$2')}) key on true`,
};

export function perIpLimit(db: Db, limitPerMinute: number): PerIpLimiter {
  const windowSeconds = WINDOW_SECONDS;
  const sweep = setInterval(() => {
    db.raw('delete from rate_limit_hits where window_start < now() - make_interval(secs => ?)', [windowSeconds * 2]).catch(() => undefined);
  }, 60_000);
  sweep.unref();

  const middleware = (async (req, res, next) => {
    try {
      const ip = ipKeyGenerator(req.ip ?? 'unknown');
      const header = req.headers.authorization;
      const bearer = req.path.startsWith('/v1/') && header ? /^Bearer ([^\s]+)$/i.exec(header)?.[1] : undefined;
      const hash = bearer && isWellFormedApiKey(bearer) ? hashApiKey(bearer) : undefined;
      // reset_in: whole seconds until the window ends, by the database clock the windows follow.
      type Row = { hits: number; reset_in: number; key?: string | null };
      // An upsert's RETURNING always yields its one row.
      const row = (
        hash ? await runPrepared<Row>(db, HIT_AND_KEY, [`ip:${ip}`, hash]) : await runPrepared<Row>(db, HIT, [`ip:${ip}`])
      )[0] as Row;
      const seconds = row.reset_in;
      // draft-6 of the IETF RateLimit header fields, as express-rate-limit sends them for the write limits.
      res.setHeader('RateLimit-Policy', `${limitPerMinute};w=${windowSeconds}`);
      res.setHeader('RateLimit-Limit', String(limitPerMinute));
      res.setHeader('RateLimit-Remaining', String(Math.max(0, limitPerMinute - row.hits)));
      res.setHeader('RateLimit-Reset', String(seconds));
      if (row.hits > limitPerMinute) {
        res.setHeader('Retry-After', String(seconds));
        next(new BaseError('rate_limited', `Rate limit of ${limitPerMinute} requests per minute exceeded; retry in ${seconds} seconds`));
        return;
      }
      if (hash) req.prefetchedKey = { bearer: bearer as string, text: row.key ?? null };
      next();
    } catch (e) {
      next(e);
    }
  }) as PerIpLimiter;
  middleware.shutdown = () => clearInterval(sweep);
  return middleware;
}
