/** The outbox bench's printed tables: the rows and headers of each, from the scenarios' results. */
const { summarise, fmt } = require('./stats');

/** Per-scenario dispatcher phase timings (walletd) and task timings (graphile-worker). */
function phaseRows(results) {
  const rows = [];
  for (const r of results) {
    if (r.system === 'walletd') {
      const all = (k) => r.runnerStats.flatMap((s) => s[k]);
      const claims = summarise(all('claims'));
      const claimed = summarise(all('claimed'));
      const sends = summarise(all('sends'));
      const records = summarise(all('records'));
      const posts = summarise(all('posts'));
      const gaps = all('gaps');
      const idle = gaps.reduce((a, b) => a + b, 0);
      const empty = r.runnerStats.reduce((a, s) => a + s.emptyClaims, 0);
      rows.push([
        r.label,
        String(claims.n),
        fmt(claimed.mean, 1),
        `${fmt(claims.p50)}/${fmt(claims.p99)}`,
        `${fmt(sends.p50)}/${fmt(sends.p99)}`,
        `${fmt(records.p50)}/${fmt(records.p99)}`,
        `${fmt(posts.p50)}/${fmt(posts.p99)}`,
        String(empty),
        `${gaps.filter((g) => g >= 100).length}`,
        fmt(idle / 1000 / r.runnerStats.length, 2),
      ]);
    }
  }
  return rows;
}

function taskRows(results) {
  return results
    .filter((r) => r.system !== 'walletd')
    .map((r) => {
      const t = summarise(r.runnerStats.flatMap((s) => s.tasks));
      const failures = r.runnerStats.reduce((a, s) => a + s.failures, 0);
      return [r.label, String(t.n), `${fmt(t.p50)}/${fmt(t.p99)}`, String(failures)];
    });
}

/** CPU per delivered event in the measured window: where the machine's time went. */
function cpuRows(results, cores) {
  return results.map((r) => {
    const { machine, pg, self, runners, wallMs } = r.cpu;
    const per = (ms) => fmt((ms * 1000) / r.events, 0);
    return [
      r.label,
      per(runners),
      per(pg),
      per(self),
      per(machine - runners - pg - self),
      per(machine),
      `${fmt((100 * machine) / (wallMs * cores), 0)}%`,
      r.producerCpu ? per(r.producerCpu.self) : '-',
      r.producerCpu ? per(r.producerCpu.pg) : '-',
    ];
  });
}

function resultRows(results) {
  return results.map((r) => {
    const ratioTo = (system) => {
      const peer = results.find((o) => o.system === system && o.mode === r.mode && o.runners === r.runners && o.repeat === r.repeat);
      return r.system === 'walletd' && peer ? `${fmt(r.perSecond / peer.perSecond, 2)}x` : '';
    };
    return [
      r.label,
      String(r.events),
      fmt(r.seconds, 2),
      fmt(r.perSecond, 0),
      r.mode !== 'backlog' ? fmt(r.p50) : '-',
      r.mode !== 'backlog' ? fmt(r.p99) : '-',
      r.mode !== 'backlog' ? fmt(r.max, 0) : '-',
      ratioTo('graphile-worker'),
      ratioTo('graphile-worker-batched'),
      fmt(r.drainedSeconds, 2),
      fmt(r.commitPerSecond, 0),
      String(r.duplicates),
    ];
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** BENCH_REPEAT > 1: per scenario, every repeat's events/s, the median, and walletd ÷ each peer's median. */
function medianRows(results) {
  const groups = new Map();
  for (const r of results) {
    const key = `${r.system} ${r.mode} x${r.runners}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const medianOf = (system, mode, runners) => {
    const g = groups.get(`${system} ${mode} x${runners}`);
    return g ? median(g.map((r) => r.perSecond)) : null;
  };
  return [...groups].map(([key, rs]) => {
    const { system, mode, runners } = rs[0];
    const own = median(rs.map((r) => r.perSecond));
    const ratio = (peer) => {
      const m = system === 'walletd' ? medianOf(peer, mode, runners) : null;
      return m ? `${fmt(own / m, 2)}x` : '';
    };
    return [
      key,
      rs.map((r) => fmt(r.perSecond, 0)).join(' / '),
      fmt(own, 0),
      mode !== 'backlog' ? fmt(median(rs.map((r) => r.p99))) : '-',
      ratio('graphile-worker'),
      ratio('graphile-worker-batched'),
    ];
  });
}

const MEDIAN_HEADERS = ['scenario', 'events/s per repeat', 'median events/s', 'median p99 ms', 'walletd/gw', 'walletd/gw-batched'];
const MEDIAN_ALIGN = ['l', 'r', 'r', 'r', 'r', 'r'];

const RESULT_HEADERS = [
  'scenario',
  'events',
  'seconds',
  'events/s',
  'p50 ms',
  'p99 ms',
  'max ms',
  'walletd/gw',
  'walletd/gw-batched',
  'drained s',
  'commits/s',
  'dup',
];
const RESULT_ALIGN = ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'];
const PHASE_HEADERS = [
  'walletd scenario',
  'rounds',
  'rows/round',
  'claim ms p50/p99',
  'send ms p50/p99',
  'record ms p50/p99',
  'POST ms p50/p99',
  'empty claims',
  'gaps>=100ms',
  'idle s/disp',
];
const PHASE_ALIGN = ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'];
const CPU_HEADERS = [
  'scenario',
  'runners µs/ev',
  'PostgreSQL µs/ev',
  'bench µs/ev',
  'other µs/ev',
  'machine µs/ev',
  'busy',
  'commit: bench µs/ev',
  'commit: PostgreSQL µs/ev',
];
const CPU_ALIGN = ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'];
const TASK_HEADERS = ['graphile-worker scenario', 'jobs', 'task ms p50/p99', 'failed'];
const TASK_ALIGN = ['l', 'r', 'r', 'r'];

module.exports = {
  phaseRows,
  taskRows,
  cpuRows,
  resultRows,
  medianRows,
  MEDIAN_HEADERS,
  MEDIAN_ALIGN,
  RESULT_HEADERS,
  RESULT_ALIGN,
  PHASE_HEADERS,
  PHASE_ALIGN,
  CPU_HEADERS,
  CPU_ALIGN,
  TASK_HEADERS,
  TASK_ALIGN,
};
