/**
 * The SQL of the `api` bench's baseline, in the shapes walletd sends (read from
 * server/src/wallets/transactionList.ts and server/src/webhooks/deliveries.ts `listEvents`): the
 * two-sided union of a transactions page (the company's index, a scoped key's wallets as
 * `wallet_id = any(…)`, the page-10 cursor as a (time, id) bound) and the events feed page. Each
 * text is sent as a named statement (pg's `name`), prepared once per connection, PostgreSQL choosing
 * custom or generic plans by its own rule: planned afresh on every call, a page plans a branch per
 * month partition (~6 ms of PostgreSQL CPU at 2,000 transfers), and at 100 req/s on this 2-core
 * machine the baseline's queries queued for seconds.
 */
const { createHash } = require('node:crypto');

const KEY_SQL = `select k.id, k.hint, k.name, k.company_id, c.name as company_name, c.plan, k.actions, k.wallet_ids,
  k.allow_ips, k.expires_at, k.revoked_at, k.created_at, k.created_by, m.role as member_role, m.removed_at as member_removed_at
  from api_keys k join companies c on c.id = k.company_id left join members m on m.id = k.created_by
  where k.key_hash = $1 limit 1`;
const WALLETS_SQL = 'select * from wallets where company_id = $1 and deleted_at is null order by id';

const MAX_ID = '9223372036854775807';

/** Microseconds since the epoch as an exact timestamptz literal (walletd's microsecondTime). */
function microsecondTime(us) {
  const n = BigInt(us);
  const ms = new Date(Number(n / 1000n)).toISOString();
  return ms.replace('Z', `${(n % 1000n).toString().padStart(3, '0')}Z`);
}

/** pg's query config for `text`, named after it (one name per text, as pg requires). */
const named = (text, values) => ({ name: `baseline_${createHash('sha256').update(text).digest('hex').slice(0, 16)}`, text, values });

/** A transactions page (a pg query config); `walletIds` a key's scope or null, `after` a `next` or undefined. */
function transactionsQuery(companyId, walletIds, after, limit) {
  const values = [companyId];
  const param = (v, cast = '') => {
    values.push(v);
    return `$${values.length}${cast}`;
  };
  const ids = walletIds ? param(walletIds, '::int[]') : null;
  const cursor = after ? /^([0-9]{1,20})\.([dw])\.([1-9][0-9]{0,15})$/.exec(after) : null;
  const time = cursor ? param(microsecondTime(cursor[1]), '::timestamptz') : null;
  const lim = param(limit, '::int');
  const filters = (alias, timeColumn, side) => {
    const parts = [`${alias}.company_id = $1`, 'wl.deleted_at is null'];
    if (ids) parts.push(`${alias}.wallet_id = any(${ids})`);
    if (cursor) {
      const idBound = cursor[2] === side ? cursor[3] : side === 'd' ? MAX_ID : '0';
      parts.push(`(${timeColumn}, ${alias}.id) < (${time}, ${param(idBound, '::bigint')})`);
      if (alias === 't') parts.push(`t.created_at <= ${time}`);
    }
    return parts.join(' and ');
  };
  const us = (c) => `(extract(epoch from ${c}) * 1000000)::bigint::text`;
  const text = `select * from (
     (select 'deposit' as kind, t.id, t.wallet_id, t.address_id, t.chain, t.network, t.tx_hash, t.event_index, t.direction,
             t.event_type, t.asset_key, null::jsonb as asset, t.amount::text as amount, t.from_address, t.to_address,
             null::jsonb as outputs, t.block_number, t.status, t.confirmations, t.reason, t.created_at, t.updated_at,
             ${us('t.created_at')} as sort_us, t.created_at as sort_at
        from transfers t join wallets wl on wl.id = t.wallet_id where ${filters('t', 't.created_at', 'd')}
       order by t.created_at desc, t.id desc limit ${lim})
     union all
     (select 'withdrawal', w.id, w.wallet_id, null, w.chain, w.network, w.tx_hash, 0, 'outgoing',
             'withdrawal', w.asset_key, w.asset, w.amount::text, w.from_address, w.to_address,
             w.outputs, w.block_number,
             case w.status when 'confirmed' then 'confirmed' when 'rejected' then 'rejected' else 'pending' end, coalesce(w.confirmations, 0), w.reason, w.created_at, w.updated_at,
             ${us('w.signed_at')}, w.signed_at
        from withdrawals w join wallets wl on wl.id = w.wallet_id
       where w.status in ('signed', 'broadcast', 'confirmed', 'rejected') and w.tx_hash is not null and ${filters('w', 'w.signed_at', 'w')}
       order by w.signed_at desc, w.id desc limit ${lim})
   ) x order by sort_at desc, kind desc, id desc limit ${lim}`;
  return named(text, values);
}

const EVENT_TYPES = [
  'deposit.detected',
  'deposit.confirmed',
  'deposit.rejected',
  'withdrawal.broadcast',
  'withdrawal.confirmed',
  'withdrawal.rejected',
];

/** An events feed page after (xid, seq) (a pg query config). */
function eventsQuery(companyId, walletIds, xid, seq, limit) {
  const values = [companyId, xid, seq, limit, ...EVENT_TYPES];
  const types = EVENT_TYPES.map((_, i) => `$${5 + i}`).join(', ');
  const scope = walletIds ? ` and wallet_id = any($${values.push(walletIds)}::int[])` : '';
  const text = `select events.xid::text as cursor_xid, seq, body from events
    where company_id = $1 and (events.xid, events.seq) > ($2::xid8, $3) and events.xid < pg_snapshot_xmin(pg_current_snapshot())${scope}
      and type in (${types}) order by events.xid, events.seq limit $4`;
  return named(text, values);
}

module.exports = { KEY_SQL, WALLETS_SQL, transactionsQuery, eventsQuery };
