import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Runs `handlers` one after the other as one router layer: each passes on with `next()`, an error
 * (passed, thrown, or a rejected promise) skips the rest and goes to the router. Why: every router
 * layer costs a request its own match, prefix trim and `next` bookkeeping; the /v1 gate (no-store,
 * authentication, body, text hygiene, plan, dashboard-only) ran as six layers on every API request
 * (bench/README.md, `api`). `next('route')` is not supported (none of the handlers uses it).
 */
export function series(...handlers: RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, done: NextFunction) => {
    let i = 0;
    const next = (err?: unknown) => {
      if (err !== undefined && err !== null) {
        done(err);
        return;
      }
      const handler = handlers[i++];
      if (!handler) {
        done();
        return;
      }
      try {
        const ret = handler(req, res, next) as unknown;
        if (ret && typeof (ret as Promise<void>).then === 'function') (ret as Promise<void>).then(undefined, done);
      } catch (e) {
        done(e);
      }
    };
    next();
  };
}
