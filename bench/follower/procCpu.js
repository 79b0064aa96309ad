/**
 * CPU of other processes from /proc (Linux): anvil's and PostgreSQL's share of a catch-up. On a
 * machine of few cores every ms they or the follower spend is taken from the others, so the
 * bench reports CPU per block for each. A process tree: the root and its live children, plus
 * what the root reaped from children that exited (cutime/cstime). Elsewhere than Linux: null.
 */
const { readFileSync, readdirSync } = require('node:fs');
const { join } = require('node:path');

const TICK_MS = 10; // USER_HZ is 100 on Linux.

/** utime, stime, cutime, cstime and the parent of a pid, or null if it is gone. */
function stat(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(f[1]), own: Number(f[11]) + Number(f[12]), reaped: Number(f[13]) + Number(f[14]) };
  } catch {
    return null;
  }
}

/** ms of CPU of `root` and its children (one level: PostgreSQL's backends, anvil has none). */
function treeCpuMs(root) {
  const r = stat(root);
  if (!r) return null;
  let ticks = r.own + r.reaped;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const c = stat(Number(name));
    if (c && c.ppid === root) ticks += c.own;
  }
  return ticks * TICK_MS;
}

/** The pids the bench reads: anvil's from its pid file, PostgreSQL's postmaster from postmaster.pid. */
function benchPids(dataDir) {
  const first = (file) => {
    try {
      return Number(readFileSync(file, 'utf8').split('\n')[0]) || null;
    } catch {
      return null;
    }
  };
  return { anvil: first(join(dataDir, 'anvil', 'anvil.pid')), pg: first(join(dataDir, 'pg', 'postmaster.pid')) };
}

/** A meter over anvil and PostgreSQL: `start()` returns a function giving the ms each spent since. */
function otherCpu(dataDir) {
  const pids = benchPids(dataDir);
  const read = () => ({ anvil: pids.anvil && treeCpuMs(pids.anvil), pg: pids.pg && treeCpuMs(pids.pg) });
  return () => {
    const a = read();
    return () => {
      const b = read();
      return {
        anvil: a.anvil === null || b.anvil === null ? null : b.anvil - a.anvil,
        pg: a.pg === null || b.pg === null ? null : b.pg - a.pg,
      };
    };
  };
}

module.exports = { otherCpu };
