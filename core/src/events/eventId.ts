import { randomFillSync } from 'node:crypto';
import { v7 } from 'uuid';
import { databaseNowMs } from './databaseClock';

/**
 * A new event id: a UUIDv7 (RFC 9562), time-ordered. Every delivery row is indexed by
 * (webhook_id, event_id, id) and events by (id, created_at): with random (v4) ids each new row
 * landed on a random leaf page of indexes that grow with the whole history (a replay of one hour,
 * 2,400 deliveries, dirtied about as many pages scattered over a 2M-row index, issue 32). Ids that
 * follow time make both indexes appended to, and a replayed window's rows land side by side.
 * Monotonic within the process (the uuid package carries a counter within a millisecond), so the
 * ids of one batch ascend in the order given. Still a UUID: the contract names no version.
 * Its time is the database's (databaseClock.ts), not the host's; the counter is kept here, as the
 * uuid package keeps its own only for ids of its own clock.
 */
export function newEventId(): string {
  const now = databaseNowMs();
  const random = randomFillSync(Buffer.alloc(16));
  if (now > state.msecs) {
    // A random 31-bit start, as the uuid package picks one for a new millisecond.
    state.seq = random.readUInt32BE(6) >>> 1;
    state.msecs = now;
  } else {
    // The same millisecond (or a clock corrected backwards): the counter keeps the ids ascending.
    state.seq = (state.seq + 1) | 0;
    if (state.seq === 0) state.msecs++;
  }
  return v7({ msecs: state.msecs, seq: state.seq, random });
}

const state = { msecs: Number.NEGATIVE_INFINITY, seq: 0 };
