/**
 * CPU accounting for a measurement window, from /proc (Linux; elsewhere the figures are NaN):
 * the whole machine's busy time, and the benchmark cluster's PostgreSQL (postmaster + its live
 * children + what it has reaped from exited children). Runner processes report their own
 * process.cpuUsage(); the bench process (producer + receiver) uses its own.
 */
const { readFileSync, readdirSync } = require('node:fs');
const { join } = require('node:path');

const TICK_MS = 10; // USER_HZ = 100 on Linux

function machineBusyMs() {
  try {
    const cols = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = cols;
    return (user + nice + system + irq + softirq + (steal ?? 0)) * TICK_MS;
  } catch {
    return Number.NaN;
  }
}

/** Fields of /proc/<pid>/stat after the command (which may contain spaces). */
function statFields(pid) {
  const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return s.slice(s.lastIndexOf(')') + 2).split(' ');
}

function postgresCpuMs(pgDir) {
  try {
    const pm = Number(readFileSync(join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    // After ')': [0]=state [1]=ppid ... [11]=utime [12]=stime [13]=cutime [14]=cstime
    const own = statFields(pm);
    let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const f = statFields(name);
        if (Number(f[1]) === pm) ticks += Number(f[11]) + Number(f[12]);
      } catch {
        /* exited meanwhile */
      }
    }
    return ticks * TICK_MS;
  } catch {
    return Number.NaN;
  }
}

const selfCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Starts a window; `end()` returns CPU ms spent in it by the machine, PostgreSQL and this process. */
function cpuWindow(pgDir) {
  const start = { machine: machineBusyMs(), pg: postgresCpuMs(pgDir), self: selfCpuMs() };
  return {
    end: () => ({
      machine: machineBusyMs() - start.machine,
      pg: postgresCpuMs(pgDir) - start.pg,
      self: selfCpuMs() - start.self,
    }),
  };
}

module.exports = { cpuWindow, selfCpuMs };
