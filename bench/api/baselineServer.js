/**
 * The baseline of `npm run bench -- api`: a plain node:http server doing the same work per request
 * as walletd's authenticated reads, against the same PostgreSQL: hash the bearer key (SHA-256),
 * look the key row up (the same join), check revocation and expiry, then run the endpoint's query
 * (the same SQL). No framework, no rate limit, no logging: the floor of what the request costs.
 */
const { createHash } = require('node:crypto');
const http = require('node:http');
const { Pool } = require('pg');

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });

const KEY_SQL = `select k.id, k.hint, k.name, k.company_id, c.name as company_name, c.plan, k.actions, k.wallet_ids,
  k.allow_ips, k.expires_at, k.revoked_at, k.created_at, k.created_by, m.role as member_role, m.removed_at as member_removed_at
  from api_keys k join companies c on c.id = k.company_id left join members m on m.id = k.created_by
  where k.key_hash = $1 limit 1`;
const WALLETS_SQL = 'select * from wallets where company_id = $1 and deleted_at is null order by id';
const TRANSACTIONS_SQL = `select * from (
   (select 'deposit' as kind, t.id, t.wallet_id, t.tx_hash, t.asset_key, t.amount::text as amount, t.status, t.created_at,
           (extract(epoch from t.created_at) * 1000000)::bigint as sort_key
      from transfers t join wallets wl on wl.id = t.wallet_id
     where t.company_id = $1 and wl.deleted_at is null order by sort_key desc, t.id desc limit 50)
   union all
   (select 'withdrawal', w.id, w.wallet_id, w.tx_hash, w.asset_key, w.amount::text, w.status, w.created_at,
           (extract(epoch from w.signed_at) * 1000000)::bigint
      from withdrawals w join wallets wl on wl.id = w.wallet_id
     where w.tx_hash is not null and w.company_id = $1 and wl.deleted_at is null order by 9 desc, w.id desc limit 50)
 ) x order by sort_key desc, kind desc, id desc limit 50`;

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const server = http.createServer(async (req, res) => {
  try {
    const m = /^Bearer ([^\s]+)$/i.exec(req.headers.authorization ?? '');
    if (!m) return send(res, 401, { code: 'unauthorized' });
    const hash = createHash('sha256').update(m[1]).digest('hex');
    const key = (await pool.query(KEY_SQL, [hash])).rows[0];
    if (!key || key.revoked_at || (key.expires_at && key.expires_at.getTime() <= Date.now()))
      return send(res, 401, { code: 'unauthorized' });
    const path = req.url.split('?')[0];
    if (path === '/v1/me')
      return send(res, 200, {
        company: { id: key.company_id, name: key.company_name, plan: key.plan },
        key: { id: key.id, hint: key.hint, actions: key.actions },
      });
    if (path === '/v1/wallets') return send(res, 200, { wallets: (await pool.query(WALLETS_SQL, [key.company_id])).rows });
    if (path === '/v1/transactions')
      return send(res, 200, { transactions: (await pool.query(TRANSACTIONS_SQL, [key.company_id])).rows, next: null });
    return send(res, 404, { code: 'not_found' });
  } catch (err) {
    send(res, 500, { code: 'internal', message: String(err) });
  }
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
