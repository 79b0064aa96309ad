/**
 * Waits until `read()` satisfies `done`, or the deadline passes, and returns the last value read:
 * for outcomes another process produces asynchronously. The test then asserts on that value, so a
 * wrong outcome still fails (this waits for completion; it never retries an assertion).
 */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000, everyMs = 100): Promise<T> {
  const until = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < until) {
    await new Promise((r) => setTimeout(r, everyMs));
    value = await read();
  }
  return value;
}
