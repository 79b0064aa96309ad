import { join } from 'node:path';
import { Piscina } from 'piscina';
import { BaseError, type DetectResult, type DetectedTransfer, type ErrorCode } from '@walletd/core';
import runDetect, { type DetectFailure, type DetectTask } from './detectWorker';

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
/**
 * Blocks smaller than this are detected on the calling thread. Handing a task to a thread costs
 * the main thread about 0.15 ms (structured clone of the task, postMessage, the answer's clone:
 * `npm run bench -- follower` profile, 2026-11-28), more than parsing a 16 KiB block: an empty EVM
 * block with its receipts and traces is under 2 KiB. Big blocks, where the parsing is the cost,
 * still go to the pool.
 */
export const DEFAULT_INLINE_DETECT_BYTES = 16_384;

/**
 * `execArgv`: node flags of the threads (a bench's `--cpu-prof`, each thread's profile written when
 * the pool closes); by default the process's own.
 */
export function createDetectPool(threads: number, options: { inlineBelowBytes?: number; execArgv?: string[] } = {}): DetectPool {
  const inlineBelow = options.inlineBelowBytes ?? DEFAULT_INLINE_DETECT_BYTES;
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
    ...(options.execArgv ? { execArgv: options.execArgv } : {}),
  });
  const run = (task: DetectTask) => {
    // Same code, same answer shape as a thread's (a failure comes back as a DetectFailure).
    if (task.raw.byteLength < inlineBelow) {
      try {
        return Promise.resolve(runDetect(task));
      } catch (err) {
        return Promise.reject(err);
      }
    }
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
