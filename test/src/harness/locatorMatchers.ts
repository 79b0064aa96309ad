import type { Locator } from 'playwright-core';
import { eventually } from './eventually';

/**
 * Assertions on what a page shows that wait, as Playwright's locator assertions do
 * (`@playwright/test` is not installed: the tests drive playwright-core). A one-shot `count()` or
 * `textContent()` right after a navigation or a click races the page: on a loaded machine
 * `consoleSweeps` once read 0 column headers just after the page loaded (issue 44 §7). Each matcher
 * reads the locator again until the expectation holds or `locatorWait.timeoutMs` passes (20 s; its own test shortens it), then judges
 * the last read, so a wrong page still fails, with what it showed. Registered on jest's `expect`
 * when `chromium.ts` is loaded: `await expect(locator).toHaveText('1 of 2')`.
 *
 * A count of 0 holds at once on a page that has not rendered yet: assert it after waiting for
 * something the same render shows.
 */
export const locatorWait = { timeoutMs: 20_000 };

/** One read of the locator: its value, or why it could not be read (detached, several matches…). */
type Read<T> = { value: T } | { error: string };

const attempt = async <T>(read: () => Promise<T>): Promise<Read<T>> => {
  try {
    return { value: await read() };
  } catch (e) {
    return { error: e instanceof Error ? e.message.split('\n')[0]! : String(e) };
  }
};

const PER_READ = { timeout: 1_000 };

/**
 * Reads until `holds` (under `.not`, until it does not) or the timeout, then judges the last read.
 * Each read may itself wait for the element; a short per-read timeout keeps the polling going.
 */
async function judge<T>(
  ctx: jest.MatcherContext,
  name: string,
  locator: Locator,
  expected: unknown,
  read: () => Promise<T>,
  holds: (v: T) => boolean,
): Promise<jest.CustomMatcherResult> {
  const isNot = ctx.isNot === true;
  const last = await eventually(
    () => attempt(read),
    (r) => 'value' in r && holds(r.value) !== isNot,
    locatorWait.timeoutMs,
    50,
  );
  const shown = 'value' in last ? `Received: ${ctx.utils.printReceived(last.value)}` : `Could not read it: ${last.error}`;
  return {
    pass: 'value' in last && holds(last.value),
    message: () =>
      `${ctx.utils.matcherHint(name, String(locator), undefined, { isNot })}\n\n` +
      `Expected${isNot ? ' not' : ''}: ${ctx.utils.printExpected(expected)}\n${shown}\n(after waiting up to ${locatorWait.timeoutMs} ms)`,
  };
}

const text = (locator: Locator) => () => locator.textContent(PER_READ);

export const locatorMatchers = {
  /** How many elements the locator matches. */
  toHaveCount(this: jest.MatcherContext, locator: Locator, expected: number) {
    return judge(
      this,
      'toHaveCount',
      locator,
      expected,
      () => locator.count(),
      (n) => n === expected,
    );
  },
  /** The element's textContent, exactly (a string), matched (a RegExp), or every match's text in order (an array). */
  toHaveText(this: jest.MatcherContext, locator: Locator, expected: string | RegExp | string[]) {
    if (Array.isArray(expected)) {
      return judge(
        this,
        'toHaveText',
        locator,
        expected,
        () => locator.allTextContents(),
        (v) => this.equals(v, expected),
      );
    }
    const holds = (v: string | null) => typeof v === 'string' && (typeof expected === 'string' ? v === expected : expected.test(v));
    return judge(this, 'toHaveText', locator, expected, text(locator), holds);
  },
  /** The element's textContent contains this. */
  toContainText(this: jest.MatcherContext, locator: Locator, expected: string) {
    return judge(this, 'toContainText', locator, expected, text(locator), (v) => typeof v === 'string' && v.includes(expected));
  },
  /** An input's or select's value. */
  toHaveValue(this: jest.MatcherContext, locator: Locator, expected: string) {
    return judge(
      this,
      'toHaveValue',
      locator,
      expected,
      () => locator.inputValue(PER_READ),
      (v) => v === expected,
    );
  },
  /** An attribute's value. */
  toHaveAttribute(this: jest.MatcherContext, locator: Locator, name: string, expected: string) {
    return judge(
      this,
      'toHaveAttribute',
      locator,
      expected,
      () => locator.getAttribute(name, PER_READ),
      (v) => v === expected,
    );
  },
  /** The control can be used (not disabled). */
  toBeEnabled(this: jest.MatcherContext, locator: Locator) {
    return judge(
      this,
      'toBeEnabled',
      locator,
      true,
      () => locator.isEnabled(PER_READ),
      (v) => v,
    );
  },
};

declare global {
  namespace jest {
    // biome-ignore lint/complexity/noBannedTypes: the declaration merges with @types/jest's, whose parameters it must repeat.
    interface Matchers<R, T = {}> {
      toHaveCount(expected: number): Promise<R>;
      toHaveText(expected: string | RegExp | string[]): Promise<R>;
      toContainText(expected: string): Promise<R>;
      toHaveValue(expected: string): Promise<R>;
      toHaveAttribute(name: string, expected: string): Promise<R>;
      toBeEnabled(): Promise<R>;
    }
  }
}

expect.extend(locatorMatchers);
