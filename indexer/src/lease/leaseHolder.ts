import { randomUUID } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { processAlive } from '@walletd/core';

/**
 * Where pids mean something: the host name plus the pid namespace (two containers may share a
 * host name, never a pid namespace). Without /proc, the host name alone.
 */
function pidScope(): string {
  try {
    return `${hostname()}/${readlinkSync('/proc/self/ns/pid')}`;
  } catch {
    return hostname();
  }
}

/** `<host>/<pid namespace>:<pid>:<random>`: unique per process start, and says where it ran. */
export function localHolderId(): string {
  return `${pidScope()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

/**
 * True when a lease holder ran in this pid scope and its process is gone (kill -9, a crash): its
 * lease can be taken at once instead of after it expires, so a restarted walletd resumes
 * indexing immediately. A holder elsewhere, or a pid now reused, counts as alive: wait it out.
 */
export function isDeadLocalHolder(holder: string): boolean {
  const m = /^(.*):(\d+):[^:]+$/.exec(holder);
  if (!m || m[1] !== pidScope()) return false;
  const pid = Number(m[2]);
  return pid !== process.pid && !processAlive(pid);
}
