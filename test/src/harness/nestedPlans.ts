import type { Db } from '@walletd/core';

/**
 * Runs `run` on `on` (a pool of one connection) with auto_explain reporting, as notices, the plans
 * of every statement it runs, those inside a function too (the outbox's claim is one plpgsql
 * function: EXPLAIN of the call shows only the call). Returns the plans' roots, in order.
 */
export async function withNestedPlans<T>(on: Db, run: () => Promise<T>): Promise<{ result: T; plans: Record<string, unknown>[] }> {
  const conn = (await on.client.acquireConnection()) as {
    on(e: 'notice', f: (m: { message?: string }) => void): void;
    removeAllListeners(e: string): void;
  };
  const notices: string[] = [];
  conn.on('notice', (m) => notices.push(m.message ?? ''));
  await on.client.releaseConnection(conn);
  await on.raw(
    `load 'auto_explain'; set auto_explain.log_min_duration = 0; set auto_explain.log_nested_statements = on;
     set auto_explain.log_level = notice; set auto_explain.log_format = json`,
  );
  try {
    const result = await run();
    const plans = notices
      .filter((m) => m.includes('plan:'))
      .map((m) => JSON.parse(m.slice(m.indexOf('plan:') + 5)).Plan as Record<string, unknown>);
    return { result, plans };
  } finally {
    await on.raw('set auto_explain.log_min_duration = -1');
    conn.removeAllListeners('notice');
  }
}
