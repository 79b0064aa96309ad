import type { Logger } from '@walletd/core';

export interface PauseGate {
  /** Whether the last check found writes paused (the withdrawal loop skips its rounds too). */
  readonly now: boolean;
  /** Asks `writesPaused` again; true while writes must wait. */
  check(): Promise<boolean>;
}

/** Skips rounds while `writesPaused` says so; the pause and the resume are logged once each. */
export function createPauseGate(
  logger: Logger,
  where: { chain: string; network: string },
  writesPaused: (() => Promise<string | null>) | undefined,
): PauseGate {
  let now = false;
  return {
    get now() {
      return now;
    },
    async check(): Promise<boolean> {
      const why = writesPaused ? await writesPaused().catch(() => null) : null;
      if (why && !now) logger.error({ ...where, reason: 'disk_full' }, `${why}: indexer paused, no writes until space is freed`);
      if (!why && now) logger.warn(where, 'free space above the floor again: indexer resumed');
      now = why !== null;
      return now;
    },
  };
}
