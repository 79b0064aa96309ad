import { type Logger, type Metrics, setDatabaseClockOffset } from '@walletd/core';

/**
 * The process clock against the database's, fed by the database watch (one sample every 0.5 s).
 * Within `clock.maxSkewMs` the offset corrects the times walletd stamps (databaseClock.ts: event
 * times, `webhook-timestamp`); beyond it the host clock is too wrong to trust even corrected (the
 * measurement itself rides on it): `tooFar()` says so for `/readyz` (`clock_skew`) and for what
 * must not sign or check codes with it. The metric has every sample; the log one line each way.
 */
export interface ClockSkew {
  sample(skewMs: number): void;
  /** One line while the clocks are further apart than the bound; null within it (or before a sample). */
  tooFar(): string | null;
}

export function createClockSkew(maxSkewMs: number, logger: Logger, metrics?: Metrics): ClockSkew {
  let last: number | null = null;
  let said = false;
  const describe = (ms: number) =>
    `the host clock is ${Math.abs(Math.round(ms / 1000))} s ${ms > 0 ? 'ahead of' : 'behind'} the database's (clock.maxSkewMs: ${maxSkewMs} ms)`;
  return {
    sample(skewMs) {
      last = skewMs;
      const far = Math.abs(skewMs) > maxSkewMs;
      setDatabaseClockOffset(skewMs, !far);
      metrics?.clockSkewSeconds.set(skewMs / 1000);
      if (far && !said) {
        said = true;
        logger.error(
          { skewMs: Math.round(skewMs) },
          `${describe(skewMs)}: /readyz says clock_skew, deliveries wait unsigned and TOTP codes are refused until it is fixed (NTP)`,
        );
      } else if (!far && said) {
        said = false;
        logger.warn({ skewMs: Math.round(skewMs) }, 'the host clock is within clock.maxSkewMs of the database again');
      }
    },
    tooFar: () => (last !== null && Math.abs(last) > maxSkewMs ? describe(last) : null),
  };
}
