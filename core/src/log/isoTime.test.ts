import pino from 'pino';
import { isoTime } from './isoTime';

describe('isoTime', () => {
  it("writes exactly pino's isoTime, at every millisecond of a second and across seconds", () => {
    const realNow = Date.now;
    try {
      const base = Date.UTC(2026, 10, 25, 9, 30, 2);
      for (const offset of [0, 1, 9, 10, 99, 100, 808, 999, 1000, 1001, 59_999, 60_000, -1, 86_400_000 - 1]) {
        Date.now = () => base + offset;
        expect(isoTime()).toBe(pino.stdTimeFunctions.isoTime());
      }
    } finally {
      Date.now = realNow;
    }
  });
});
