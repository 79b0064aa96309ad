/**
 * The `isolation` mode of the outbox bench (issue 29): the healthy receiver's commit → POST
 * latency with 0, 1 and 10 dead receivers (accept the connection, never answer) beside it, in one
 * run, walletd only. The dead webhooks belong to another company, which gets one event (fanned out
 * to each of its webhooks) before each healthy event, at the same paced rate.
 *
 * Measured in steady state: the warm-up runs until every dead webhook is backed off by its
 * breaker (the first attempts to a dead receiver wait out the whole timeout, 10 s by default),
 * then BENCH_EVENTS healthy events are timed while the dead ones keep coming, their breakers
 * probing one attempt at a time whenever a back-off ends.
 */
const net = require('node:net');
const { performance } = require('node:perf_hooks');
const { DestinationPolicy, addMember, createCompany, createWebhook } = require('@walletd/server');
const { summarise, fmt } = require('./stats');
const { cpuWindow } = require('./cpu');
const { printStatements } = require('../pgStatements');

async function startTarpit() {
  const sockets = new Set();
  let most = 0;
  const server = net.createServer((s) => {
    sockets.add(s);
    most = Math.max(most, sockets.size);
    s.on('data', () => undefined);
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/hook`,
    most: () => most,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Cumulative counters (pg_stat_*: flushed by each backend within about a second, so a window's difference is close). */
async function pgCounts(db) {
  const { rows } = await db.raw(
    `select (select sum(blks_hit + blks_read) from pg_stat_database)::float8 as buffers,
       (select n_tup_upd from pg_stat_user_tables where relname = 'webhook_deliveries')::float8 as updates,
       (select n_tup_ins from pg_stat_user_tables where relname = 'webhook_deliveries')::float8 as inserts`,
  );
  return rows[0];
}

/**
 * `h` carries main.js's helpers: makeProducer, produce, resetQueues, startRunners, runnerConfig.
 * `fresh` (issue 43): no warm-up; the dead receivers are new when the measured events start, so the
 * measurement spans their first attempts waiting out the timeout before any breaker opens.
 */
async function runIsolation(ctx, h, dead, fresh = false) {
  const { settings, db, receiver } = ctx;
  const label = `walletd isolation ${dead} dead${fresh ? ', fresh' : ''}`;
  process.stdout.write(`\n${label}: `);
  await db.raw('delete from webhooks where company_id <> ?', [ctx.seed.companyId]);
  await db.raw('update webhooks set consecutive_failures = 0, backoffs = 0, backed_off_at = null, backed_off_until = null');
  await h.resetQueues(db);
  receiver.reset();
  const tarpits = [];
  let runners = [];
  try {
    const company = await createCompany(db, { name: `Dead ${dead}`, plan: 'paid' });
    await addMember(db, { companyId: company.id, email: `owner-${dead}@dead.example`, role: 'owner' });
    const [wallet] = await db('wallets')
      .insert({ company_id: company.id, name: 'w', chain: 'ethereum', network: 'sepolia', secret_envelope: {} })
      .returning('id');
    for (let i = 0; i < dead; i++) {
      const t = await startTarpit();
      tarpits.push(t);
      await createWebhook(
        { db, masterKey: ctx.masterKey, policy: new DestinationPolicy(['127.0.0.0/8']) },
        { companyId: company.id, keyId: null, walletIds: null },
        { type: 'api', config: { url: t.url }, events: ['*'] },
      );
    }
    const healthyOne = h.makeProducer('walletd', db, ctx.seed);
    const deadOne = h.makeProducer('walletd', db, { ...ctx.seed, companyId: company.id, walletId: wallet.id });
    const produceOne =
      dead > 0
        ? async () => {
            await deadOne();
            return healthyOne();
          }
        : healthyOne;

    runners = await h.startRunners('walletd', 1, h.runnerConfig(ctx, 'walletd'));
    for (const r of runners) r.go();
    await Promise.all(runners.map((r) => r.next('started')));
    const warmStart = performance.now();
    if (!fresh) process.stdout.write('warm-up… ');
    // Paced like the measurement, until every dead webhook is backed off (and at least BENCH_WARMUP events).
    let warm = 0;
    for (; !fresh; ) {
      const batch = await h.produce(produceOne, Math.max(50, Math.ceil(settings.rate / 2)), settings.producers, settings.rate);
      warm += batch.commitAt.size;
      const { rows } = await db.raw('select count(*)::int as n from webhooks where backed_off_until > now()');
      if (rows[0].n >= dead && warm >= settings.warmup) break;
      if (performance.now() - warmStart > settings.timeoutMs) throw new Error(`${label}: dead webhooks not backed off in time`);
    }
    if (warm > 0) await receiver.waitFor(warm, settings.timeoutMs);
    const warmSeconds = (performance.now() - warmStart) / 1000;
    receiver.reset();
    await Promise.all(runners.map((r) => r.mark()));
    if (settings.pgStatements) await db.raw('select pg_stat_statements_reset()');
    const cpu = cpuWindow(ctx.pgDir);
    const counts0 = await pgCounts(db);
    process.stdout.write(`measuring ${settings.events}… `);
    const produced = await h.produce(produceOne, settings.events, settings.producers, settings.rate);
    await receiver.waitFor(settings.events, settings.timeoutMs);
    // CPU per healthy event delivered (the dead events' commits included): PostgreSQL's is load-independent enough to A/B.
    const cpuSpent = cpu.end();
    const counts1 = await pgCounts(db);
    if (settings.pgStatements) await printStatements(db, label, { per: settings.events, unit: 'healthy event', top: 10, width: 110 });
    const { arrivals, duplicates } = receiver.snapshot();
    const latencies = [];
    for (const [id, at] of arrivals) {
      const c = produced.commitAt.get(id);
      if (c !== undefined) latencies.push(Math.max(0, at - c));
    }
    const lat = summarise(latencies);
    if (process.env.BENCH_DUMP) {
      const t0 = Math.min(...produced.commitAt.values());
      const rowsOut = [];
      for (const [id, at] of arrivals) {
        const c = produced.commitAt.get(id);
        if (c !== undefined) rowsOut.push([Math.round(c - t0), Math.round(at - c)]);
      }
      require('node:fs').writeFileSync(`${process.env.BENCH_DUMP}-${dead}${fresh ? 'f' : ''}.json`, JSON.stringify(rowsOut));
    }
    const { rows } = await db.raw(
      `select count(*) filter (where backed_off_until > now())::int as backed_off, coalesce(sum(backoffs), 0)::int as backoffs
         from webhooks where company_id = ?`,
      [company.id],
    );
    const most = tarpits.reduce((m, t) => Math.max(m, t.most()), 0);
    // The runners' CPU comes with their stop (it waits out the dead attempts in flight, idle).
    const stats = await Promise.all(runners.map((r) => r.stop()));
    runners = [];
    const per = (ms) => fmt((ms * 1000) / settings.events, 0);
    const runnerMs = stats.reduce((a, s) => a + s.cpuMs, 0);
    const each = (k) => fmt((counts1[k] - counts0[k]) / settings.events, 1);
    process.stdout.write(
      `p99 ${fmt(lat.p99)} ms; per healthy event: CPU µs dispatcher ${per(runnerMs)}, PostgreSQL ${per(cpuSpent.pg)}; ` +
        `shared buffers ${each('buffers')}, webhook_deliveries rows updated ${each('updates')}, inserted ${each('inserts')}`,
    );
    return { dead, fresh, events: settings.events, p50: lat.p50, p99: lat.p99, max: lat.max, warmSeconds, duplicates, most, ...rows[0] };
  } finally {
    // Stopping waits for the attempts in flight: a dead receiver's end only at the timeout.
    await Promise.all(runners.map((r) => r.stop().catch(() => r.kill())));
    for (const t of tarpits) await t.close();
  }
}

const ISOLATION_HEADERS = [
  'scenario',
  'healthy events',
  'p50 ms',
  'p99 ms',
  'max ms',
  'p99 / no dead',
  'warm-up s',
  'most conns per dead receiver',
  'dead backed off at end',
];
const ISOLATION_ALIGN = ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'];

function isolationRows(results) {
  // A fresh row is compared with the fresh 0-dead row when there is one: the same cold dispatcher
  // (no warm-up, the healthy receiver not yet known to answer fast), so the ratio is the dead ones' doing.
  const warmBase = results.find((r) => r.dead === 0 && !r.fresh);
  const freshBase = results.find((r) => r.dead === 0 && r.fresh) ?? warmBase;
  return results.map((r) => {
    const base = r.fresh ? freshBase : warmBase;
    return [
      `walletd paced x1, ${r.dead} dead receiver${r.dead === 1 ? '' : 's'}${r.fresh ? (r.dead ? ', fresh (from their first event)' : ', fresh (cold dispatcher)') : ''}`,
      String(r.events),
      fmt(r.p50),
      fmt(r.p99),
      fmt(r.max, 0),
      base ? `${fmt(r.p99 / base.p99, 2)}x` : '',
      r.fresh ? '-' : fmt(r.warmSeconds, 1),
      r.dead ? String(r.most) : '-',
      r.dead ? `${r.backed_off}/${r.dead}` : '-',
    ];
  });
}

module.exports = { runIsolation, isolationRows, ISOLATION_HEADERS, ISOLATION_ALIGN };
