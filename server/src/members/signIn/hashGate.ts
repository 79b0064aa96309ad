import { BaseError } from '@walletd/core';

/**
 * Bounds how many password hashes (argon2id, tens of milliseconds of CPU and 19 MiB each) run at
 * once: a burst of sign-ins must not starve the API and the indexer sharing the process. Up to
 * `concurrency` run; up to `queue` more wait their turn in order; beyond that the request is refused
 * at once with 503 `unavailable` and Retry-After 1 (a client retries; waiting longer would only
 * pile up memory and open connections behind the burst).
 */
export class HashGate {
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(
    readonly concurrency: number,
    readonly queue: number,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#running >= this.concurrency) {
      if (this.#waiting.length >= this.queue) {
        throw new BaseError('unavailable', 'Too many sign-ins are being checked right now; retry in a second', {
          details: { retryAfterSeconds: 1 },
        });
      }
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#running++;
    }
    try {
      return await work();
    } finally {
      // The slot passes straight to the next waiter, so `running` never dips between them.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }

  /** Hashes running and waiting now (for tests and metrics). */
  get load(): { running: number; waiting: number } {
    return { running: this.#running, waiting: this.#waiting.length };
  }
}
