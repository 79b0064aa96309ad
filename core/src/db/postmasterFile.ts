import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive, processCommandLine } from '../process';

/**
 * What a cluster's `postmaster.pid` says about the postmaster serving it. PostgreSQL writes, one
 * per line: pid, data directory, start time, port, socket directory, listen address, shared
 * memory key, status. The port is the one the cluster really listens on, whatever port the
 * reading process was configured with.
 */
export interface PostmasterFile {
  pid: number;
  port: number;
  /** False when the pid is dead, or recycled by a program that is not postgres. */
  alive: boolean;
}

export function readPostmasterFile(pgDir: string): PostmasterFile | null {
  const file = join(pgDir, 'postmaster.pid');
  if (!existsSync(file)) return null;
  const lines = readFileSync(file, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!(pid > 0)) return { pid: 0, port, alive: false };
  // A recycled pid that now belongs to another program is not our postmaster (no /proc: trust it).
  const cmd = processAlive(pid) ? processCommandLine(pid) : null;
  const alive = cmd !== null && (cmd === '' || cmd.includes('postgres'));
  return { pid, port, alive };
}
