/** One answer (or failure to answer) of the load, with when it ended. */
export interface LoadResult {
  target: string;
  path: string;
  /** The HTTP status, or 0 when no answer came (connection refused or reset). */
  status: number;
  at: number;
}

/**
 * `concurrency` clients per target, each sending the next of `paths` (authenticated GETs) as soon
 * as its last one ended, until `stop()`: steady load on every API process, answers and failures kept.
 */
export function startLoad(
  targets: { name: string; base: string }[],
  key: string,
  paths: string[],
  concurrency: number,
): { results: LoadResult[]; stop(): Promise<LoadResult[]> } {
  const results: LoadResult[] = [];
  let running = true;
  const client = async (target: { name: string; base: string }, offset: number) => {
    for (let i = offset; running; i++) {
      const path = paths[i % paths.length] as string;
      let status = 0;
      try {
        const res = await fetch(`${target.base}${path}`, { headers: { authorization: `Bearer ${key}` } });
        await res.arrayBuffer();
        status = res.status;
      } catch {
        // A killed process: refused or reset. Back off a little so a dead target is not a busy loop.
        await new Promise((r) => setTimeout(r, 50));
      }
      results.push({ target: target.name, path, status, at: Date.now() });
    }
  };
  const all = targets.flatMap((t) => Array.from({ length: concurrency }, (_, i) => client(t, i)));
  return {
    results,
    stop: async () => {
      running = false;
      await Promise.all(all);
      return results;
    },
  };
}
