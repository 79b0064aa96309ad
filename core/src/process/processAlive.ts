import { readFileSync } from 'node:fs';

/**
 * Whether a process is alive. A zombie counts as dead: in containers pid 1 may never reap an
 * orphan (a postmaster or anvil whose walletd was killed), and kill(pid, 0) still succeeds on it.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.charAt(stat.lastIndexOf(')') + 2) !== 'Z';
  } catch {
    return true; // no /proc (macOS): kill(pid, 0) is all there is
  }
}

/** The command line of a live process, or '' when unknown (used to tell our children from recycled pids). */
export function processCommandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}
