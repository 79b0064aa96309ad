import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';
import type { Db } from '@walletd/core';

/**
 * A fixed-window counter in PostgreSQL, so a limit holds across every API process sharing the
 * database. Windows are aligned to the database clock (not each process's), one upsert per hit.
 */
export class PgRateLimitStore implements Store {
  readonly localKeys = false;
  readonly prefix: string;
  #windowSeconds = 60;
  #sweep: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    prefix: string,
  ) {
    this.prefix = prefix;
  }

  init(options: Options): void {
    this.#windowSeconds = Math.max(1, Math.round(options.windowMs / 1000));
    // Old windows are useless; sweep them now and then (any process may do it).
    this.#sweep = setInterval(() => {
      this.db
        .raw(`delete from rate_limit_hits where window_start < now() - make_interval(secs => ?)`, [this.#windowSeconds * 2])
        .catch(() => undefined);
    }, 60_000);
    this.#sweep.unref();
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    const { rows } = await this.db.raw(
      `insert into rate_limit_hits (key, window_start, hits)
       values (?, to_timestamp(floor(extract(epoch from now()) / ?) * ?), 1)
       on conflict (key, window_start) do update set hits = rate_limit_hits.hits + 1
       returning hits, window_start + make_interval(secs => ?) as reset_at`,
      [this.prefix + key, this.#windowSeconds, this.#windowSeconds, this.#windowSeconds],
    );
    const row = rows[0] as { hits: number; reset_at: Date };
    return { totalHits: row.hits, resetTime: row.reset_at };
  }

  async decrement(key: string): Promise<void> {
    await this.db.raw(
      `update rate_limit_hits set hits = greatest(hits - 1, 0)
       where key = ? and window_start = to_timestamp(floor(extract(epoch from now()) / ?) * ?)`,
      [this.prefix + key, this.#windowSeconds, this.#windowSeconds],
    );
  }

  async resetKey(key: string): Promise<void> {
    await this.db('rate_limit_hits')
      .where('key', this.prefix + key)
      .delete();
  }

  shutdown(): void {
    if (this.#sweep) clearInterval(this.#sweep);
  }
}
