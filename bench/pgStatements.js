/**
 * BENCH_PG_STATEMENTS=1 (outbox, follower): the statements PostgreSQL spent the most time in
 * (pg_stat_statements: execution + planning, wall time inside the server), per unit of work
 * (`per` units, named `unit`: events delivered, blocks indexed), and the shared buffers each read or
 * hit per unit (a plpgsql function's nested statements count in its call): a count the machine's
 * load does not change, where the time does.
 */
async function printStatements(db, label, { per, unit, top, width }) {
  const { rows } = await db.raw(
    `select calls, rows, total_exec_time + total_plan_time as ms, shared_blks_hit + shared_blks_read as buffers, regexp_replace(query, '\\s+', ' ', 'g') as query
       from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())
      order by total_exec_time + total_plan_time desc limit ${Number(top)}`,
  );
  console.log(`\n  top statements of ${label} (µs and shared buffers per ${unit}, calls, rows per call):`);
  for (const r of rows) {
    const perUnit = (Number(r.ms) * 1000) / per;
    console.log(
      `  ${perUnit.toFixed(0).padStart(6)} µs ${(Number(r.buffers) / per).toFixed(1).padStart(8)} buf ${String(r.calls).padStart(7)} ${(Number(r.rows) / Math.max(1, Number(r.calls))).toFixed(1).padStart(6)}  ${r.query.slice(0, width)}`,
    );
  }
}

module.exports = { printStatements };
