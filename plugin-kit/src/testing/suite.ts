import { BaseError } from '../errors';
/**
 * The kit is plain async checks, not jest tests: a chain team runs it from any test runner, and
 * the kit's own test suite runs it against deliberately broken plugins to see it fail them (a
 * failing check inside jest's `describe` would fail the suite instead of being observed).
 */
export interface ConformanceCheck {
  name: string;
  /** Throws (an `AssertionError` from `node:assert`) when the plugin breaks the promise. */
  run(): Promise<void> | void;
}

export interface ConformanceSuite {
  title: string;
  /** Starts what the checks need (a node); runs once before them. */
  before?(): Promise<void>;
  after?(): Promise<void>;
  checks: ConformanceCheck[];
}

export interface ConformanceResult {
  name: string;
  passed: boolean;
  /** The failure's message, when it failed. */
  error?: string;
}

/** Runs every check in order, whatever fails, and says which passed. */
export async function runConformance(suite: ConformanceSuite): Promise<ConformanceResult[]> {
  const results: ConformanceResult[] = [];
  try {
    await suite.before?.();
    for (const check of suite.checks) {
      try {
        await check.run();
        results.push({ name: check.name, passed: true });
      } catch (err) {
        results.push({ name: check.name, passed: false, error: err instanceof Error ? err.message : String(err) });
      }
    }
  } finally {
    await suite.after?.();
  }
  return results;
}

interface JestLikeGlobals {
  describe(name: string, body: () => void): void;
  it(name: string, body: () => Promise<void>): void;
  beforeAll(body: () => Promise<void>, timeout?: number): void;
  afterAll(body: () => Promise<void>, timeout?: number): void;
}

/**
 * One `it` per check inside a `describe`, for jest, vitest or mocha-with-hooks (whatever defines
 * these globals). The kit does not depend on the runner: it looks the globals up when called.
 */
export function describeConformance(suite: ConformanceSuite): void {
  const g = globalThis as unknown as Partial<JestLikeGlobals>;
  if (!g.describe || !g.it || !g.beforeAll || !g.afterAll) {
    throw new BaseError(
      'usage_invalid',
      'describeConformance needs a test runner with describe/it/beforeAll/afterAll globals; use runConformance otherwise',
    );
  }
  const { describe, it, beforeAll, afterAll } = g as JestLikeGlobals;
  describe(suite.title, () => {
    if (suite.before) beforeAll(() => (suite.before as () => Promise<void>)(), 120_000);
    if (suite.after) afterAll(() => (suite.after as () => Promise<void>)(), 120_000);
    for (const check of suite.checks) it(check.name, async () => check.run());
  });
}
