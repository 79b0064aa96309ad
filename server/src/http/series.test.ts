import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { series } from './series';

const run = (handler: RequestHandler) =>
  new Promise<unknown>((resolve) => handler({} as Request, {} as Response, ((err?: unknown) => resolve(err ?? 'passed')) as NextFunction));

describe('series', () => {
  it('runs every handler in order, then passes on', async () => {
    const seen: number[] = [];
    const step =
      (n: number): RequestHandler =>
      (_req, _res, next) => {
        seen.push(n);
        next();
      };
    const later: RequestHandler = async (_req, _res, next) => {
      await Promise.resolve();
      seen.push(3);
      next();
    };
    expect(await run(series(step(1), step(2), later, step(4)))).toBe('passed');
    expect(seen).toEqual([1, 2, 3, 4]);
  });

  it('stops at the first error, passed, thrown or rejected', async () => {
    const after = jest.fn();
    const passed: RequestHandler = (_req, _res, next) => next(new Error('passed'));
    const thrown: RequestHandler = () => {
      throw new Error('thrown');
    };
    const rejected: RequestHandler = async () => {
      throw new Error('rejected');
    };
    for (const [handler, message] of [
      [passed, 'passed'],
      [thrown, 'thrown'],
      [rejected, 'rejected'],
    ] as const) {
      expect(await run(series(handler, after))).toEqual(new Error(message));
    }
    expect(after).not.toHaveBeenCalled();
  });
});
