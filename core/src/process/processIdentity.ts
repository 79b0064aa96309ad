import { readFileSync } from 'node:fs';
import { processAlive } from './processAlive';

/**
 * A process named by pid and start time, so a pid the kernel recycled for another program is not
 * mistaken for the process that wrote a pid file (an owner file, a lock) before it was killed.
 */
export interface ProcessIdentity {
  pid: number;
  /** Start time in clock ticks since boot (/proc/<pid>/stat field 22); '' where there is no /proc. */
  startedAt: string;
}

export function processStartTime(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): state is field 3, starttime field 22.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
  } catch {
    return '';
  }
}

export const selfIdentity = (): ProcessIdentity => ({ pid: process.pid, startedAt: processStartTime(process.pid) });

export const formatIdentity = (id: ProcessIdentity): string => `${id.pid} ${id.startedAt}`.trim();

/** Reads `pid [starttime]`; older files hold the pid alone. */
export function parseIdentity(text: string): ProcessIdentity | null {
  const [pidText, startedAt = ''] = text.trim().split(/\s+/);
  const pid = Number(pidText);
  return Number.isInteger(pid) && pid > 0 ? { pid, startedAt } : null;
}

/** The same process is still running: alive, not a zombie, and (where known) started at the same tick. */
export function identityAlive(id: ProcessIdentity): boolean {
  if (!processAlive(id.pid)) return false;
  if (id.startedAt === '') return true;
  const now = processStartTime(id.pid);
  return now === '' || now === id.startedAt;
}
