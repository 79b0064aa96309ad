/**
 * The statements timed at each size, captured as the code sends them: each read and each indexer
 * query is called once through its own function with knex's 'query' event listened to (runPrepared
 * emits it too), so the bench times the exact SQL and parameters of the build under test.
 */
const { DEFAULT_CONFIG } = require('@walletd/core');
const { loadPlugins, replay, walletBalances } = require('@walletd/server');
const { listTransactions } = require('@walletd/server/dist/wallets/transactionList');
const { pendingTransfers, rejectDetached, rewindTo } = require('@walletd/indexer');

// balance_ledger: the balance read reads only it (migration 026).
const HISTORY = /\b(transfers|events|withdrawals|webhook_deliveries|balance_ledger)\b/;
const WRITES = /^\s*(update|insert|delete|with [\s\S]*\binsert\b)/i;

async function capture(db, fn) {
  const sent = [];
  const listen = (q) => {
    // `prepared`: runPrepared's name (the list, the balances): timed by name, as the code runs it;
    // `genericPlan`: on its generic plan, as runPrepared runs it (the list pages).
    if (HISTORY.test(q.sql))
      sent.push({ sql: q.sql, values: q.bindings ?? [], writes: WRITES.test(q.sql), prepared: q.prepared, genericPlan: q.genericPlan });
  };
  db.on('query', listen);
  try {
    await fn();
  } finally {
    db.removeListener('query', listen);
  }
  return sent;
}

class Rollback extends Error {}

/** In a transaction rolled back: the captured statement is what matters, not its effect. */
const rolledBack = (db, fn) =>
  db
    .transaction(async (trx) => {
      await fn(trx);
      throw new Rollback();
    })
    .catch((e) => {
      if (!(e instanceof Rollback)) throw e;
    });

async function statements(db, scope, { size, asset, historyTime }) {
  const plugins = loadPlugins();
  const list = (q) => listTransactions(db, DEFAULT_CONFIG, plugins, { companyId: scope.companyId, walletIds: null, limit: 50, ...q });
  const mid = await db('transfers')
    .where({ company_id: scope.companyId })
    .orderBy('id')
    .offset(Math.floor(size / 2))
    .first('tx_hash', 'from_address');
  const first = await list({});
  // Page 51 by cursor: follow `next` 50 times, time the 51st.
  let next = first.next;
  for (let i = 0; i < 49 && next; i++) next = (await list({ after: next })).next;
  const k = { chain: scope.chain, network: scope.network };
  const until = historyTime(size - 1);
  const webhook = await db('webhooks').where({ id: scope.webhookId }).first();
  const named = [
    ['GET /v1/transactions first page', () => list({})],
    ['GET /v1/transactions?search=<hash>', () => list({ search: mid.tx_hash })],
    // The console's search box (`/console/api/transactions?q=`, migration 028): a hash, an address.
    ['console ?q=<hash>', () => list({ hashOrAddress: mid.tx_hash })],
    ['console ?q=<sender address>', () => list({ hashOrAddress: mid.from_address })],
    ['GET /v1/transactions?walletId=', () => list({ walletId: scope.walletIds[3] })],
    ['GET /v1/transactions page 51 by cursor', () => list({ after: next })],
    ['GET /v1/wallets/:id/balances', () => walletBalances(db, new Map([[asset.key, asset]]), scope.walletIds[0], asset.key)],
    ['indexer: pending transfers', () => pendingTransfers(db, k)],
    ['indexer: detached candidates', () => rolledBack(db, (trx) => rejectDetached(trx, k, new Map([[asset.key, asset]])))],
    ['indexer: rewind (reorg)', () => rolledBack(db, (trx) => rewindTo(trx, k, BigInt(Math.floor(size / 4) - 100), '0xancestor'))],
    [
      'webhook replay of a 1-hour window',
      () =>
        rolledBack(db, (trx) =>
          replay(trx, webhook, { since: new Date(until.getTime() - 3_600_000).toISOString(), until: until.toISOString() }),
        ),
    ],
  ];
  const out = [];
  for (const [name, fn] of named) {
    const sent = await capture(db, fn);
    for (const [i, st] of sent.entries()) out.push({ ...st, name: sent.length > 1 ? `${name} (${i + 1}/${sent.length})` : name });
  }
  return out;
}

module.exports = { statements };
