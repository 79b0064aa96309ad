import { BaseError, type Db, EVENT_TYPES, type PreparedStatement, runPrepared } from '@walletd/core';

/** The page sizes whose text is prepared: a page reads at most the next one of them (limit 1–1000). */
const PAGE_BOUNDS = [10, 50, 100, 200, 500, 1000] as const;

const statements = new Map<string, PreparedStatement>();

/**
 * The feed's text for a scope (the company's, or a key's wallets) and a page bound. Why a named
 * statement on its generic plan: `events` is partitioned by month and the feed has no month to
 * prune to, so a plan made per call planned a branch per month kept (2.0 ms of planning against
 * 0.3 ms of execution at 27 months; 9.7 ms with a key's 1,000 wallets as an IN list, issue 48 §5,
 * bench/README.md `api`). The generic plan is the same walk a fresh one made (each month's
 * (company, xid, seq) index, merged, stopping at the page): nothing in the values changes it. The
 * LIMIT is a literal bound, because a generic plan takes a LIMIT parameter for a tenth of the table;
 * the page is cut to the asked size outside it.
 */
function feedStatement(scoped: boolean, bound: number): PreparedStatement {
  const key = `${scoped ? 'scoped' : 'company'}_${bound}`;
  let statement = statements.get(key);
  if (!statement) {
    statement = {
      name: `walletd_event_feed_${key}`,
      text: `select f.cursor_xid, f.seq, f.body from (
          select events.xid::text as cursor_xid, events.xid, events.seq, events.body from events
           where events.company_id = $1 and (events.xid, events.seq) > ($2::xid8, $3::bigint)
             and events.xid < pg_snapshot_xmin(pg_current_snapshot()) and events.type = any($4::text[])
             ${scoped ? 'and events.wallet_id = any($6::int[])' : ''}
           order by events.xid, events.seq limit ${bound}) f
        order by f.xid, f.seq limit $5::int`,
      genericPlan: true,
    };
    statements.set(key, statement);
  }
  return statement;
}

/** One page of the feed as stored: each event's body text (its JSON, written once by recordEvent), in feed order. */
export interface EventsPage {
  bodies: string[];
  next: string;
  hasMore: boolean;
}

/**
 * The durable, ordered event feed: the API as the source of truth a receiver reconciles against.
 * Pages by (transaction id, sequence) and serves only events whose transaction ended before every
 * transaction still running: a long transaction that commits late cannot slip behind a cursor
 * already handed out. The cursor is opaque: "<xid>.<seq>".
 */
export async function readEventsPage(
  db: Db,
  companyId: number,
  walletIds: ReadonlySet<number> | null,
  after: string,
  limit: number,
  /** The types listed; the spec's six when omitted. */
  types: readonly string[] = EVENT_TYPES,
): Promise<EventsPage> {
  const [xid, seq] = parseCursor(after);
  const bound = PAGE_BOUNDS.find((b) => b >= limit) ?? limit;
  const values: unknown[] = [companyId, xid, seq, [...types], limit];
  if (walletIds !== null) values.push([...walletIds]);
  const rows = await runPrepared<{ cursor_xid: string; seq: number; body: string }>(db, feedStatement(walletIds !== null, bound), values);
  const last = rows[rows.length - 1];
  return {
    bodies: rows.map((r) => r.body),
    next: last ? `${last.cursor_xid}.${last.seq}` : `${xid}.${seq}`,
    hasMore: rows.length === limit,
  };
}

/** The feed page with each event parsed (for callers that read the events). */
export async function listEvents(...args: Parameters<typeof readEventsPage>) {
  const { bodies, next, hasMore } = await readEventsPage(...args);
  return { events: bodies.map((b) => JSON.parse(b) as unknown), next, hasMore };
}

/**
 * The page as the API answers it, `{"events":[…],"next":…,"hasMore":…}`, with each stored body
 * spliced in as it is. The bytes are those of `JSON.stringify(listEvents(…))`: a body is
 * JSON.stringify's own output (recordEvent), which parsing and writing again reproduces exactly
 * (eventsFeedPlan.test compares the two). Why: parsing 50–1,000 bodies only to write them again
 * was most of the feed's CPU in the API bench (issue 48 §5, bench/README.md `api`).
 */
export function eventsPageText(page: EventsPage): string {
  return `{"events":[${page.bodies.join(',')}],"next":${JSON.stringify(page.next)},"hasMore":${page.hasMore}}`;
}

/** xid8 is an unsigned 64-bit integer; a larger value would fail the cast in PostgreSQL (a 500). */
const MAX_XID8 = 2n ** 64n - 1n;

function parseCursor(text: string): [string, number] {
  if (text === '0') return ['0', 0];
  const m = /^(0|[1-9][0-9]{0,19})\.(0|[1-9][0-9]{0,14})$/.exec(text);
  if (!m || BigInt(m[1] as string) > MAX_XID8) throw new BaseError('validation_failed', 'after must be a cursor returned as `next`');
  return [m[1] as string, Number(m[2])];
}
