/**
 * The database's clock as this process reads it: the process clock corrected by the last offset
 * the database watch measured (databaseWatch.ts, `serve` only). Event times (`createdAt`, the time
 * part of UUIDv7 event ids) and the `webhook-timestamp` of deliveries come from here, so a host
 * clock that lies (faketime, a broken NTP) does not stamp them; leases, retries and rate limits
 * already use the database's `now()`. A process that measures nothing (an admin command, a test)
 * keeps offset 0: its own clock. Process-wide like the clock it corrects.
 */
let offsetMs = 0;
let tooFar = false;

/**
 * The process clock minus the database's, in ms (the watch's measurement); `trusted` false when it
 * is beyond `clock.maxSkewMs`: then what must not run on a clock that far off (TOTP checks) refuses.
 */
export function setDatabaseClockOffset(ms: number, trusted = true): void {
  offsetMs = Number.isFinite(ms) ? Math.round(ms) : 0;
  tooFar = !trusted;
}

/** Whether the last measurement put the host clock beyond `clock.maxSkewMs` from the database's. */
export function databaseClockTooFar(): boolean {
  return tooFar;
}

/** Now, in ms since the epoch, by the database's clock. */
export function databaseNowMs(): number {
  return Date.now() - offsetMs;
}
