/**
 * CPU time of processes from /proc (Linux), for the `api` bench's CPU milliseconds per request:
 * the server process's and its PostgreSQL cluster's, read before and after a measured run.
 */
const fs = require('node:fs');
const { join } = require('node:path');

/** CPU seconds used so far by each process: pid → seconds (user + system, or user alone). */
function cpuSeconds(pids, which = 'all') {
  const out = new Map();
  for (const pid of pids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const user = Number(fields[11]);
      out.set(pid, (which === 'user' ? user : user + Number(fields[12])) / 100); // USER_HZ is 100 on Linux
    } catch {}
  }
  return out;
}

/** CPU seconds between two readings, over the processes present in both (null when none was). */
function cpuDelta(before, after) {
  let sum = 0;
  let seen = 0;
  for (const [pid, s] of after) {
    if (!before.has(pid)) continue;
    sum += s - before.get(pid);
    seen++;
  }
  return seen === 0 ? null : sum;
}

/** The PostgreSQL processes of the bench's own cluster (postmaster and its backends). */
function postgresPids(dataDir) {
  try {
    const postmaster = Number(fs.readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const children = fs
      .readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .filter((d) => {
        try {
          const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
          return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
        } catch {
          return false;
        }
      })
      .map(Number);
    return [postmaster, ...children];
  } catch {
    return [];
  }
}

module.exports = { cpuSeconds, cpuDelta, postgresPids };
