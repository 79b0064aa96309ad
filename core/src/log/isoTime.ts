/**
 * pino's `stdTimeFunctions.isoTime`, the same text (`,"time":"2026-11-25T09:30:02.808Z"`), with
 * the date and the time to the second formatted once a second instead of once a line. Why:
 * `Date.prototype.toISOString` formats through V8's printf-style string stream, a few µs a call,
 * and every API request writes an access line (bench/README.md, `api`).
 */
let second = Number.NaN;
let prefix = '';

export function isoTime(): string {
  const now = Date.now();
  const s = Math.floor(now / 1000);
  if (s !== second) {
    second = s;
    // "2026-11-25T09:30:02." : everything before the milliseconds.
    prefix = new Date(s * 1000).toISOString().slice(0, 20);
  }
  const ms = now - s * 1000;
  return `,"time":"${prefix}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z"`;
}
