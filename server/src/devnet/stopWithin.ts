import type { Logger } from '@walletd/core';

/** How long one local engine may take to stop before the service goes on without it. */
export const ENGINE_STOP_MS = 15_000;

/**
 * Runs an engine's stop, bounded: a stop that fails or has not ended after `ms` is logged as a
 * warning and left behind, so that one engine can never keep `walletd serve` (and the engines
 * stopped after it) from stopping. Never rejects.
 */
export async function stopWithin(logger: Logger, name: string, stop: () => Promise<void>, ms = ENGINE_STOP_MS): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
  });
  try {
    const r = await Promise.race([stop().then(() => 'stopped' as const), late]);
    if (r === 'late') logger.warn({ chain: name, waitedMs: ms }, `local chain ${name} did not stop in ${ms / 1000} s; going on without it`);
  } catch (err) {
    logger.warn({ err, chain: name }, `local chain ${name} did not stop cleanly`);
  } finally {
    clearTimeout(timer);
  }
}
