import { join } from 'node:path';
import { Piscina } from 'piscina';
import type { DetectResult } from '@walletd/core';
import type { DetectTask } from './detectWorker';

export interface DetectPool {
  detect(task: DetectTask): Promise<DetectResult>;
  /** Busy fraction of the threads since start (for /metrics and logs). */
  utilization(): number;
  threads: number;
  close(): Promise<void>;
}

/**
 * One Piscina pool shared by every follower: the CPU-heavy part (JSON parse and scan of whole
 * blocks) runs off the main thread. The raw bytes are transferred, not copied.
 */
export function createDetectPool(threads: number): DetectPool {
  // Always the compiled worker: threads load plain JS (tests import this package's dist for that reason).
  const pool = new Piscina({ filename: join(__dirname, 'detectWorker.js'), minThreads: threads, maxThreads: threads, idleTimeout: 60_000 });
  return {
    threads,
    detect: (task) => {
      const transferable =
        task.raw.byteOffset === 0 && task.raw.byteLength === task.raw.buffer.byteLength && !(task.raw.buffer instanceof SharedArrayBuffer);
      return pool.run(task, transferable ? { transferList: [task.raw.buffer as ArrayBuffer] } : {}) as Promise<DetectResult>;
    },
    utilization: () => pool.utilization,
    close: () => pool.destroy(),
  };
}
