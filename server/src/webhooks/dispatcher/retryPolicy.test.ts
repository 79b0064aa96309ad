import { backoffSeconds, parseRetryAfter } from './retryPolicy';

describe('retry policy', () => {
  it('waits 5, 10, 20, 40 s between the five attempts, doubling and capped at 60 s', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffSeconds(n))).toEqual([5, 10, 20, 40, 60, 60]);
  });

  it('scales the whole schedule, cap included, with webhooks.retryBaseMs', () => {
    expect([1, 2, 3, 4, 5].map((n) => backoffSeconds(n, 200))).toEqual([0.2, 0.4, 0.8, 1.6, 2.4]);
    expect([1, 4].map((n) => backoffSeconds(n, 5000))).toEqual([5, 40]);
  });

  it('reads Retry-After as seconds or an HTTP date, a day at most', () => {
    expect(parseRetryAfter('7')).toBe(7);
    expect(parseRetryAfter('999999')).toBe(86_400);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 0)).toBe(10);
    expect(parseRetryAfter('soon')).toBeNull();
  });
});
