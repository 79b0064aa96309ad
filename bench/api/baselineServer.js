/**
 * The baseline of `npm run bench -- api`: a plain node:http server doing the same work per request
 * as walletd's authenticated reads, against the same PostgreSQL: hash the bearer key (SHA-256),
 * look the key row up (the same join), check revocation and expiry, then run the endpoint's query
 * (the same SQL shapes, baselineSql.js). No framework, no rate limit, no logging: the floor of what the request costs.
 */
const { createHash } = require('node:crypto');
const http = require('node:http');
const { Pool } = require('pg');

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });

const { KEY_SQL, WALLETS_SQL, eventsQuery, transactionsQuery } = require('./baselineSql');

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
    const [path, query] = req.url.split('?');
    const q = new URLSearchParams(query ?? '');
    if (path === '/v1/me')
      return send(res, 200, {
        company: { id: key.company_id, name: key.company_name, plan: key.plan },
        key: { id: key.id, hint: key.hint, actions: key.actions },
      });
    if (path === '/v1/wallets') return send(res, 200, { wallets: (await pool.query(WALLETS_SQL, [key.company_id])).rows });
    if (path === '/v1/transactions') {
      const limit = Number(q.get('limit') ?? 50);
      const rows = (await pool.query(transactionsQuery(key.company_id, key.wallet_ids, q.get('after') ?? undefined, limit))).rows;
      const last = rows.length === limit ? rows[rows.length - 1] : undefined;
      return send(res, 200, { transactions: rows, next: last ? `${last.sort_us}.${last.kind[0]}.${last.id}` : null });
    }
    if (path === '/v1/events') {
      const [xid, seq] = (q.get('after') ?? '0.0').split('.');
      const limit = Number(q.get('limit') ?? 100);
      const rows = (await pool.query(eventsQuery(key.company_id, key.wallet_ids, xid, Number(seq ?? 0), limit))).rows;
      const last = rows[rows.length - 1];
      const next = last ? `${last.cursor_xid}.${last.seq}` : `${xid}.${seq ?? 0}`;
      return send(res, 200, { events: rows.map((r) => JSON.parse(r.body)), next, hasMore: rows.length === limit });
    }
    return send(res, 404, { code: 'not_found' });
  } catch (err) {
    send(res, 500, { code: 'internal', message: String(err) });
  }
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
