/**
 * Routes whose path carries a one-time secret (invitation and reset links): every log line that
 * names a request's path passes it through `redactPath`, so a token read from a log cannot be used.
 * A new token-bearing route joins this list and is redacted everywhere at once.
 *
 * Each entry is the route's fixed segments; whatever follows them is the secret (and anything
 * after it). Matching ignores case, percent-encoding and empty segments (`//`), as a tolerant proxy or router might,
 * so no spelling of the path slips a token through.
 */
export const TOKEN_BEARING_ROUTES: readonly (readonly string[])[] = [
  ['console', 'links'],
  ['console', 'api', 'links'],
];

export const REDACTED_SEGMENT = ':token';

const decoded = (segment: string): string => {
  try {
    return decodeURIComponent(segment).toLowerCase();
  } catch {
    return segment.toLowerCase();
  }
};

const startsWith = (segments: string[], prefix: readonly string[]) =>
  prefix.length < segments.length && prefix.every((p, i) => decoded(segments[i] as string) === p);

/** The path with a token-bearing route's secret replaced by `:token`; any other path unchanged. */
export function redactPath(path: string): string {
  const segments = path.split('/').filter((s) => s !== '');
  for (const route of TOKEN_BEARING_ROUTES) {
    if (startsWith(segments, route)) return `/${[...segments.slice(0, route.length), REDACTED_SEGMENT].join('/')}`;
  }
  return path;
}
