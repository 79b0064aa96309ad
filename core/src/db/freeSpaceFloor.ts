import { readFile, statfs } from 'node:fs/promises';
import { diskFullMessage } from './diskFull';

/** Bytes an unprivileged writer may still use on the filesystem holding `path`. */
export type FreeBytesReader = (path: string) => Promise<number>;

export const statfsFreeBytes: FreeBytesReader = async (path) => {
  const s = await statfs(path);
  return s.bavail * s.bsize;
};

/**
 * Test knob: reads the free bytes from a file (its content, a number) instead of the filesystem,
 * so a test can cross the floor both ways without filling a real disk. Set by
 * `WALLETD_TEST_FREE_BYTES_FILE`; never use it in production.
 */
export const fileFreeBytes =
  (file: string): FreeBytesReader =>
  async () =>
    Number((await readFile(file, 'utf8')).trim());

export interface FreeSpaceFloor {
  path: string;
  floorBytes: number;
  /**
   * null while the free space is at or above the floor (or cannot be read: the floor never stops
   * writes on a guess); else why writes pause, one line starting "disk full on <path>".
   */
  shortage(): Promise<string | null>;
}

const MB = 1024 * 1024;

/**
 * The free-space floor of the embedded cluster's disk (`database.minFreeBytes`): below it the
 * indexer stops writing and `/readyz` says why, before PostgreSQL itself fails on a full disk
 * (which crashes the cluster: a WAL write that cannot be done is a PANIC). Read at most once per
 * `cacheMs`: readiness probes and every chain's rounds ask, statfs answers the same.
 */
export function createFreeSpaceFloor(options: {
  path: string;
  floorBytes: number;
  freeBytes?: FreeBytesReader;
  cacheMs?: number;
}): FreeSpaceFloor {
  const { path, floorBytes } = options;
  const read = options.freeBytes ?? statfsFreeBytes;
  const cacheMs = options.cacheMs ?? 1000;
  let cached: { at: number; value: Promise<string | null> } | null = null;
  const measure = async (): Promise<string | null> => {
    if (floorBytes <= 0) return null;
    let free: number;
    try {
      free = await read(path);
    } catch {
      return null;
    }
    if (!Number.isFinite(free) || free >= floorBytes) return null;
    return `${diskFullMessage(path)}: ${Math.floor(free / MB)} MB free, below the floor of ${Math.floor(floorBytes / MB)} MB (database.minFreeBytes)`;
  };
  return {
    path,
    floorBytes,
    shortage() {
      if (!cached || Date.now() - cached.at >= cacheMs) cached = { at: Date.now(), value: measure() };
      return cached.value;
    },
  };
}
