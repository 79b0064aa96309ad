/**
 * BENCH_SCALE_REPLAY_RUNS=1: where the replay's timed runs spend what its single EXPLAIN does not
 * show (issue 32, session 4). The same captured replay statement, run by run, in four passes on the
 * same history: timed and rolled back as timeOne does (each run's ms); EXPLAIN (ANALYZE, BUFFERS,
 * WAL) of each run (execution, buffers, WAL, the webhook foreign key's trigger); timed with a VACUUM
 * of webhook_deliveries before each run (no dead entries from the runs before); timed again as the
 * first pass. After each run: whether an autovacuum worker had the table, and its dead tuples.
 */

async function tableState(c) {
  const { rows } = await c.query(
    `select s.n_dead_tup::int as dead, s.autovacuum_count::int as autovacuums,
            (select count(*) from pg_stat_progress_vacuum v where v.relid = 'webhook_deliveries'::regclass)::int as vacuuming,
            pg_relation_size('webhook_deliveries') / 8192 as heap_pages
       from pg_stat_user_tables s where s.relid = 'webhook_deliveries'::regclass`,
  );
  return rows[0];
}

const fmt = (xs) => xs.map((x) => x.toFixed(1)).join(' ');

const ISO = /^\d{4}-\d\d-\d\dT/;
/** The statement's window moved `hours` back (its since and until bindings). */
const shifted = (values, hours) =>
  values.map((v) => (typeof v === 'string' && ISO.test(v) ? new Date(Date.parse(v) - hours * 3_600_000).toISOString() : v));

async function pass(c, st, runs, { explain = false, vacuumFirst = false, fresh = false } = {}) {
  const ms = [];
  const notes = [];
  for (let i = 0; i < runs; i++) {
    let vacuumMs = null;
    if (vacuumFirst) {
      const v0 = performance.now();
      await c.query('vacuum webhook_deliveries');
      vacuumMs = performance.now() - v0;
    }
    await c.query('begin');
    const t0 = performance.now();
    const values = fresh ? shifted(st.values, i + 1) : st.values;
    const r = await c.query({ text: explain ? `explain (analyze, buffers, wal, format json) ${st.sql}` : st.sql, values });
    ms.push(performance.now() - t0);
    if (explain) {
      const [{ Plan: p, Triggers: tr, 'Execution Time': exec }] = r.rows[0]['QUERY PLAN'];
      const fk = (tr ?? []).find((t) => /webhook_id/.test(t['Constraint Name'] ?? t['Trigger Name']));
      notes.push(
        `exec ${exec.toFixed(1)} hit ${p['Shared Hit Blocks']} read ${p['Shared Read Blocks']} dirtied ${p['Shared Dirtied Blocks']} written ${p['Shared Written Blocks']} wal ${p['WAL Records']}/${p['WAL FPI']}fpi/${p['WAL Bytes']}B fk ${fk ? fk.Time.toFixed(1) : '-'}`,
      );
    }
    await c.query('rollback');
    const s = await tableState(c);
    if (!explain)
      notes.push(
        `dead ${s.dead} av ${s.autovacuums}${s.vacuuming ? ' VACUUMING' : ''} pages ${s.heap_pages}${vacuumMs === null ? '' : ` (vacuum ${vacuumMs.toFixed(0)} ms)`}${fresh ? ` queued ${r.rows[0].queued}` : ''}`,
      );
  }
  return { ms, notes };
}

async function replayRuns(db, st, runs, size) {
  const c = await db.client.acquireConnection();
  try {
    const { rows } = await c.query(
      `select current_setting('shared_buffers') as sb, pg_size_pretty(pg_relation_size('webhook_deliveries')) as heap,
              pg_size_pretty(pg_indexes_size('webhook_deliveries')) as indexes`,
    );
    console.log(`    replay runs: shared_buffers ${rows[0].sb}, webhook_deliveries heap ${rows[0].heap}, indexes ${rows[0].indexes}`);
    for (const [name, opts] of [
      ['timed, rolled back (as timeOne)', {}],
      ['EXPLAIN ANALYZE each', { explain: true }],
      ['timed, VACUUM webhook_deliveries before each', { vacuumFirst: true }],
      ['timed, rolled back, again', {}],
      // One hour further back each run (1,200 transfers an hour), where the history is that long.
      ...(size >= (runs + 2) * 1200 ? [['timed, rolled back, each on a fresh hour', { fresh: true }]] : []),
    ]) {
      const { ms, notes } = await pass(c, st, runs, opts);
      console.log(`    ${name}: ${fmt(ms)}`);
      for (const [i, n] of notes.entries()) console.log(`      ${i + 1}: ${ms[i].toFixed(1)} ms ${n}`);
    }
  } finally {
    await db.client.releaseConnection(c);
  }
}

module.exports = { replayRuns };
