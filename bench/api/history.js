/**
 * BENCH_API_TRANSFERS=10000,1000000: the `api` bench's company gets a history, grown in those
 * steps, and every endpoint is measured at each step in the same run (issue 48 §5: the reads at
 * 1M transfers through HTTP, each within 2x of its 10k time). The history is bench/scale's, seeded
 * by the same SQL (test/src/harness/historySeed.js: transfers, their two events and deliveries, a
 * withdrawal per 140 transfers, in bulk through generate_series), spread over BENCH_API_WALLETS
 * (1000) wallets with an address each, on ethereum sepolia beside the bench's own ten wallets.
 * A second key is limited to BENCH_API_SCOPE (default: all of those) wallets.
 */
const { ALL_ACTIONS, createDb, ensureMonthPartitions } = require('@walletd/core');
const { createApiKey, loadPlugins } = require('@walletd/server');
const { seedHistory, seedHistoryScope } = require('../../test/src/harness/historySeed');

function historySizes() {
  const spec = process.env.BENCH_API_TRANSFERS;
  return spec ? spec.split(',').map(Number) : [];
}

/** The wallets the history is spread over, and a key limited to BENCH_API_SCOPE of them. */
async function openHistory(url, companyId) {
  const db = createDb({ url, poolMax: 2 });
  const wallets = Number(process.env.BENCH_API_WALLETS ?? 1000);
  const scope = await seedHistoryScope(db, { companyId, network: 'sepolia', wallets });
  // The seeded history starts in January 2025: its months, as the migration of a database that old makes them.
  for (const table of ['transfers', 'events']) await ensureMonthPartitions(db, table, { from: new Date('2025-01-01') });
  const inScope = scope.walletIds.slice(0, Number(process.env.BENCH_API_SCOPE ?? wallets));
  const { key: scopedKey } = await createApiKey(db, { companyId, name: 'bench scoped', actions: ALL_ACTIONS, walletIds: inScope });
  const assetKey = loadPlugins().chainTable().nativeAsset('ethereum', 'sepolia').key;
  let from = 0;
  return {
    wallets,
    inScope: inScope.length,
    scopedKey,
    /** Seeds transfers up to `size`, then VACUUM ANALYZE and a CHECKPOINT (as bench/scale does); seconds taken. */
    async growTo(size) {
      const t0 = performance.now();
      await seedHistory(db, scope, { from, to: size, assetKey });
      await db.raw('vacuum analyze');
      // The seed leaves GBs of dirty pages at 1M: flushed now, not under the measured requests.
      await db.raw('checkpoint');
      from = size;
      const { rows } = await db.raw('select pg_size_pretty(pg_database_size(current_database())) as size');
      return { seconds: (performance.now() - t0) / 1000, bytes: rows[0].size };
    },
    close: () => db.destroy(),
  };
}

/** The `after` of the `page`th page of 50 (following `next` from the first page, as a client would). */
async function pageCursor(baseUrl, key, page) {
  let after;
  for (let i = 1; i < page; i++) {
    const r = await fetch(`${baseUrl}/v1/transactions?limit=50${after ? `&after=${after}` : ''}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const body = await r.json();
    if (r.status !== 200) throw new Error(`page ${i}: ${r.status} ${JSON.stringify(body).slice(0, 200)}`);
    if (!body.next) throw new Error(`the history holds ${i} pages of 50, fewer than the ${page} asked for: seed more transfers`);
    after = body.next;
  }
  return after;
}

module.exports = { historySizes, openHistory, pageCursor };
