/**
 * The dispatcher's claim as it degrades between vacuums (issue 32: 55 ms at 100k transfers, 1 s at
 * 1M before a vacuum; 4–17 ms after). Every delivered row leaves dead entries in the pending rows'
 * partial indexes (the claim walks them) until a vacuum removes them, and autovacuum only comes when
 * the dead rows pass `autovacuum_vacuum_threshold + autovacuum_vacuum_scale_factor × rows` (the
 * table's own settings where migration 027 set them, the server's otherwise). So the worst claim
 * between two vacuums is the claim with that many rows just delivered: this makes exactly that many
 * (pending, claimed, then delivered by the dispatcher's own statements' effect: status, lease and
 * attempt columns), with autovacuum held off the table meanwhile so nothing cleans them early, and
 * times the claim (both statements, rolled back) on ten live due rows: the first run (it meets every
 * dead entry), then `runs` more (a scan marks the dead entries it met, later ones skip them cheaper),
 * then the same after a VACUUM of the table.
 */
const { claimDue } = require('@walletd/server/dist/webhooks/dispatcher/deliveryStore');

class Rollback extends Error {}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

/**
 * Dead rows at which autovacuum takes the table: its reloptions if set (unless `serverDefaults`),
 * else the server's settings.
 */
async function vacuumTriggerRows(db, table, serverDefaults = false) {
  const own = (name) =>
    serverDefaults
      ? `current_setting('${name}')`
      : `coalesce((select option_value from pg_options_to_table(c.reloptions) where option_name = '${name}'),
                     current_setting('${name}'))`;
  const { rows } = await db.raw(
    `select c.reltuples::bigint as tuples,
            ${own('autovacuum_vacuum_threshold')}::float8 as threshold,
            ${own('autovacuum_vacuum_scale_factor')}::float8 as scale,
            ${own('autovacuum_vacuum_max_threshold')}::float8 as max_threshold
       from pg_class c where c.oid = ?::regclass`,
    [table],
  );
  const r = rows[0];
  const byScale = r.threshold + r.scale * Number(r.tuples);
  return Math.floor(r.max_threshold > 0 ? Math.min(byScale, r.max_threshold) : byScale);
}

async function timeClaim(db, runs) {
  const ms = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await db
      .transaction(async (trx) => {
        // claimDue opens its own transaction; inside this one it is a savepoint, rolled back with it.
        const claimed = await claimDue(trx, 10, 30_000, 10);
        ms.push(performance.now() - t0);
        if (claimed.length === 0) throw new Error('the claim found no due delivery');
        throw new Rollback();
      })
      .catch((e) => {
        if (!(e instanceof Rollback)) throw e;
      });
  }
  return { first: ms[0], p50: pct(ms.slice(1), 50), p99: pct(ms.slice(1), 99) };
}

/**
 * Twice, back to back on the same history so the machine's load weighs on both alike: with as many
 * rows delivered as PostgreSQL's default settings let pass before a vacuum (50 + 20% of the table),
 * then as many as the table's own settings do (migration 027: a fixed count).
 */
async function claimBetweenVacuums(db, scope, { runs = 30 } = {}) {
  const out = {};
  for (const [name, serverDefaults] of [
    ['serverDefaults', true],
    ['tableSettings', false],
  ]) {
    await db.raw('vacuum webhook_deliveries');
    out[name] = await claimAfterDelivered(db, scope, await vacuumTriggerRows(db, 'webhook_deliveries', serverDefaults), runs);
  }
  return out;
}

async function claimAfterDelivered(db, scope, dead, runs) {
  await db.raw('alter table webhook_deliveries set (autovacuum_enabled = false)');
  try {
    // The newest events get one more delivery each (a redelivery's shape), due now, claimed, then delivered.
    await db.raw(
      `insert into webhook_deliveries (webhook_id, event_id, event_type, status, next_attempt_at)
       select :webhook, id, type, 'pending', now() - interval '1 minute' from events order by seq desc limit :n`,
      { webhook: scope.webhookId, n: dead },
    );
    await db.raw(
      `update webhook_deliveries set leased = true, next_attempt_at = now() + interval '30 seconds'
        where status = 'pending' and webhook_id = :webhook`,
      { webhook: scope.webhookId },
    );
    await db.raw(
      `update webhook_deliveries set status = 'delivered', attempts = attempts + 1, response_code = 200, next_attempt_at = null,
              leased = false, updated_at = now()
        where status = 'pending' and webhook_id = :webhook`,
      { webhook: scope.webhookId },
    );
    // Ten live rows due now, newer than every dead entry (as new deposits' deliveries would be).
    await db.raw(
      `insert into webhook_deliveries (webhook_id, event_id, event_type, status, next_attempt_at)
       select :webhook, id, type, 'pending', now() from events order by seq desc limit 10`,
      { webhook: scope.webhookId },
    );
    const before = await timeClaim(db, runs + 1);
    await db.raw('vacuum webhook_deliveries');
    const after = await timeClaim(db, runs + 1);
    await db.raw(`delete from webhook_deliveries where status = 'pending' and webhook_id = :webhook`, { webhook: scope.webhookId });
    return { dead, before, after };
  } finally {
    await db.raw('alter table webhook_deliveries reset (autovacuum_enabled)');
  }
}

module.exports = { claimBetweenVacuums };
