/**
 * A company's history written straight to the tables the way the code writes them (the indexer's
 * transfers, recordEvent's events and deliveries, signed withdrawals), in bulk through
 * generate_series: the query-plan tests and `npm run bench -- scale` need 10^4 to 10^7 rows, which
 * the write paths themselves would take hours to make. Plain CommonJS so that the bench (plain
 * Node.js against the built packages) and the jest tests share one seed.
 *
 * Shape per transfer i (0-based, `from` ≤ i < `to`): wallet i % wallets, block i / 4, created
 * 3 s after the one before (so one hour holds 1,200 transfers), two events (detected and
 * confirmed) each delivered once, and a withdrawal for every 140th transfer (7k per 1M; `withdrawalEvery`). The newest
 * `pending` transfers of the seeded range stay pending (a quarter of them in no block: mempool
 * sightings); the earlier step's pending ones are confirmed first, as the indexer would.
 */
const ORIGIN = "timestamptz '2025-01-01 00:00:00+00'";

/** Wallets with one address each, and one webhook every event is delivered to. */
async function seedHistoryScope(db, { companyId, chain = 'ethereum', network = 'devnet', wallets = 10 }) {
  const walletRows = await db('wallets')
    .insert(Array.from({ length: wallets }, (_, n) => ({ company_id: companyId, name: `h${n}`, chain, network, secret_envelope: {} })))
    .returning('id');
  const walletIds = walletRows.map((r) => r.id);
  const addressIds = [];
  for (const [n, walletId] of walletIds.entries()) {
    const address = `0x${(companyId * 1000 + n).toString(16).padStart(40, '0')}`;
    const [row] = await db('addresses')
      .insert({
        company_id: companyId,
        wallet_id: walletId,
        chain,
        network,
        address,
        match_key: address,
        derivation_index: 0,
        derivation_path: "m/44'/60'/0'/0/0",
      })
      .returning('id');
    addressIds.push(row.id);
  }
  const [webhook] = await db('webhooks')
    .insert({ company_id: companyId, type: 'http', config: { url: 'http://127.0.0.1:9/hook' }, events: ['*'], secret_envelope: {} })
    .returning('id');
  return { companyId, chain, network, walletIds, addressIds, webhookId: webhook.id };
}

/** Transfers [from, to) with their events, deliveries and withdrawals. */
async function seedHistory(db, scope, { from = 0, to, assetKey, pending = 560, withdrawalEvery = 140 }) {
  const p = {
    company: scope.companyId,
    chain: scope.chain,
    network: scope.network,
    wallets: scope.walletIds,
    addresses: scope.addressIds,
    webhook: scope.webhookId,
    asset: assetKey,
    from,
    to,
    pendingFrom: Math.max(from, to - pending),
    detachedFrom: Math.max(from, to - Math.floor(pending / 4)),
    every: withdrawalEvery,
  };
  await db.raw(
    `update transfers set status = 'confirmed', confirmations = 12, block_number = coalesce(block_number, 0)
                 where company_id = :company and status = 'pending'`,
    p,
  );
  await db.raw(
    `insert into transfers (company_id, wallet_id, address_id, chain, network, tx_hash, tx_key, event_index, direction,
                            event_type, asset_key, amount, from_address, to_address, block_number, block_hash, status,
                            confirmations, created_at, updated_at)
     select :company, (:wallets::int[])[1 + i % cardinality(:wallets::int[])], (:addresses::int[])[1 + i % cardinality(:addresses::int[])],
            :chain, :network, h.hash, h.hash, 0, 'incoming', 'native_transfer', :asset, (1000000 + i)::numeric,
            '0x' || substr(md5('from' || i), 1, 40), '0x' || substr(md5('to' || i), 1, 40),
            case when i >= :detachedFrom then null else i / 4 end,
            case when i >= :detachedFrom then null else '0x' || md5('block' || (i / 4)) end,
            case when i >= :pendingFrom then 'pending' else 'confirmed' end,
            case when i >= :pendingFrom then 0 else 12 end,
            ${ORIGIN} + i * interval '3 seconds', ${ORIGIN} + i * interval '3 seconds'
       from generate_series(:from::bigint, :to::bigint - 1) i,
            lateral (select '0x' || md5(i::text) || md5('h' || i) as hash) h`,
    p,
  );
  // Two events per transfer, each delivered once (the dispatcher's finished rows). Ids are UUIDv7
  // of the event's time, as recordEvent makes them (core/src/events/eventId.ts).
  await db.raw(
    `with ev as (
       insert into events (id, company_id, type, chain, network, wallet_id, body, created_at)
       select uuidv7(${ORIGIN} + i * interval '3 seconds' + k.lag - now()), :company, k.type, :chain, :network, (:wallets::int[])[1 + i % cardinality(:wallets::int[])],
              '{"type":"' || k.type || '","data":{"txHash":"0x' || md5(i::text) || md5('h' || i) || '","n":' || i || ',"pad":"' || repeat('x', 600) || '"}}',
              ${ORIGIN} + i * interval '3 seconds' + k.lag
         from generate_series(:from::bigint, :to::bigint - 1) i,
              (values ('deposit.detected', interval '0'), ('deposit.confirmed', interval '1 second')) k(type, lag)
       returning id, type, created_at
     )
     insert into webhook_deliveries (webhook_id, event_id, event_type, status, attempts, response_code, next_attempt_at, created_at, updated_at)
     select :webhook, id, type, 'delivered', 1, 200, null, created_at, created_at from ev`,
    p,
  );
  await db.raw(
    `insert into withdrawals (company_id, wallet_id, intent_hash, chain, network, asset_key, amount, to_address, from_address,
                              source_addresses, status, tx_hash, fee, confirmations, signed_at, broadcast_at, confirmed_at,
                              created_at, updated_at)
     select :company, (:wallets::int[])[1 + i % cardinality(:wallets::int[])], md5('intent' || i), :chain, :network, :asset,
            1000, '0x' || substr(md5('out' || i), 1, 40), '0x' || substr(md5('src' || i), 1, 40),
            array['0x' || substr(md5('src' || i), 1, 40)], 'confirmed', '0x' || md5('w' || i) || md5('wh' || i), 21000, 12,
            t, t, t, t, t
       from generate_series(:from::bigint, :to::bigint - 1) i,
            lateral (select ${ORIGIN} + i * interval '3 seconds' + interval '2 seconds' as t) ts
      where i % :every = :every - 1`,
    p,
  );
}

/** The newest seeded transfer's time: `seedHistory(…, { to })` seeds up to just before it. */
function historyTime(i) {
  return new Date(Date.parse('2025-01-01T00:00:00Z') + i * 3000);
}

module.exports = { seedHistoryScope, seedHistory, historyTime };
