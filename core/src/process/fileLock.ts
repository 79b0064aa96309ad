import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { BaseError } from '@walletd/plugin-kit';
import { formatIdentity, identityAlive, parseIdentity, selfIdentity } from './processIdentity';

export interface FileLockOptions {
  /** What the lock guards, for the message when waiting gives up. */
  what: string;
  timeoutMs?: number;
}

const readText = (file: string): string | null => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
};

/**
 * Runs `fn` while holding `file` as a lock between processes (walletd processes deciding whether
 * to start, join or stop a shared child such as the embedded PostgreSQL). The lock is created
 * whole by link(2), which fails if it exists, so a reader never sees a half-written holder. A
 * lock whose holder died (kill -9 mid-start) is stale: it is removed and taken.
 */
export async function withFileLock<T>(file: string, options: FileLockOptions, fn: () => Promise<T>): Promise<T> {
  const me = `${formatIdentity(selfIdentity())}\n`;
  const draft = `${file}.${process.pid}`;
  const deadline = Date.now() + (options.timeoutMs ?? 180_000);
  writeFileSync(draft, me, { mode: 0o600 });
  try {
    for (;;) {
      try {
        linkSync(draft, file);
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      const text = readText(file);
      if (text === null) continue; // released between our link and our read
      const holder = parseIdentity(text);
      if (holder === null || !identityAlive(holder)) {
        // Re-read just before removing: another process may have replaced the stale lock already.
        if (readText(file) === text) rmSync(file, { force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new BaseError(
          'unavailable',
          `${options.what}: walletd process ${holder.pid} has held ${file} for too long; if no walletd process is running, remove that file`,
        );
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    rmSync(draft, { force: true });
  }
  try {
    return await fn();
  } finally {
    if (readText(file) === me) rmSync(file, { force: true });
  }
}
