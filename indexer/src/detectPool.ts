import { join } from 'node:path';
import { Piscina } from 'piscina';
import { BaseError, type DetectResult, type DetectedTransfer, type ErrorCode } from '@walletd/core';
import type { DetectFailure, DetectTask } from './detectWorker';

export interface DetectPool {
  detect(task: DetectTask): Promise<DetectResult>;
  /** The plugin's `detectMempool` on framed mempool transactions. */
  detectMempool(task: DetectTask): Promise<DetectedTransfer[]>;
  /** Busy fraction of the threads since start (for /metrics and logs). */
  utilization(): number;
  threads: number;
  close(): Promise<void>;
}

/** Tasks handed to a thread at once: the one it runs and the next. */
const PREFETCH_PER_THREAD = 2;

/**
 * One Piscina pool shared by every follower: the CPU-heavy part (JSON parse and scan of whole
 * blocks) runs off the main thread. The raw bytes are transferred, not copied.
 */
export function createDetectPool(threads: number): DetectPool {
  // Always the compiled worker: threads load plain JS (tests import this package's dist for that reason).
  const pool = new Piscina({
    filename: join(__dirname, 'detectWorker.js'),
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: 60_000,
    // Each thread holds its next block while it parses one (the tasks themselves are synchronous):
    // with one, a thread that finished waited for the main thread to be scheduled and hand it the
    // next, idle 10-25 % of the time on a busy 2-core machine (issue 17; `npm run bench -- indexer`).
    concurrentTasksPerWorker: PREFETCH_PER_THREAD,
  });
  const run = (task: DetectTask) => {
    const transferable =
      task.raw.byteOffset === 0 && task.raw.byteLength === task.raw.buffer.byteLength && !(task.raw.buffer instanceof SharedArrayBuffer);
    return pool.run(task, transferable ? { transferList: [task.raw.buffer as ArrayBuffer] } : {});
  };
  /** A failed read the worker returned (detectWorker.ts), thrown again as the BaseError it was. */
  const rethrow = <T>(out: T | DetectFailure): T => {
    if (out && typeof out === 'object' && 'detectFailed' in out) {
      const { code, message, details } = out.detectFailed;
      throw new BaseError(code as ErrorCode, message, details ? { details } : {});
    }
    return out as T;
  };
  return {
    threads,
    detect: async (task) => rethrow<DetectResult>(await run({ ...task, entry: 'detect' })),
    detectMempool: async (task) => rethrow<DetectedTransfer[]>(await run({ ...task, entry: 'detectMempool' })),
    utilization: () => pool.utilization,
    close: () => pool.destroy(),
  };
}
