/**
 * An error's message with the messages of its causes appended, each once: a cause whose text the
 * message already carries (an error that wraps another and names why, `the node did not answer:
 * timed out`) adds nothing. pino's own serializer appends every cause, which printed such text
 * twice in the log.
 */
export function messageOnce(err: Error): string {
  let text = err.message ?? '';
  const seen = new Set<unknown>([err]);
  let cause = (err as { cause?: unknown }).cause;
  while (cause instanceof Error && !seen.has(cause)) {
    seen.add(cause);
    if (cause.message && !text.includes(cause.message)) text = text ? `${text}: ${cause.message}` : cause.message;
    cause = (cause as { cause?: unknown }).cause;
  }
  return text;
}
