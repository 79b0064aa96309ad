import { IncomingMessage, type RequestListener, type Server, type ServerOptions, ServerResponse, createServer } from 'node:http';
import type { Express } from 'express';

type Constructor = new (...args: never[]) => object;

/**
 * A constructor that builds what `Base` builds, with `proto` as the object's prototype from birth.
 * Node's `IncomingMessage` and `ServerResponse` are plain functions (not classes), so `Base.call`
 * runs their constructor on an object already made from `proto`. Why not `Reflect.construct(Base,
 * args, K)`: measured ~100 µs a request slower than the swap it replaces (`api-inprocess`); a class
 * (a later Node) cannot be called, and gets it anyway rather than failing.
 */
function bornAs(proto: object, Base: Constructor): Constructor {
  const callable = !/^class\b/.test(Function.prototype.toString.call(Base));
  function K(this: object, a: unknown, b: unknown) {
    if (callable) (Base as unknown as (...args: unknown[]) => void).call(this, a, b);
    else return Reflect.construct(Base, [a, b], K) as object;
  }
  K.prototype = proto;
  return K as unknown as Constructor;
}

/**
 * An HTTP server for `app` whose requests and responses are created with the app's own prototypes
 * (`app.request`, `app.response`), so Express's `Object.setPrototypeOf` of both on every request
 * finds them already set and changes nothing. Why: that swap gave every request and response object
 * a second hidden class after Node's HTTP code had built it, which made the property accesses of
 * Node's HTTP layer, the router and every middleware polymorphic (V8 inline-cache misses in the
 * API bench's profiles); creating them right cost ~135 µs less CPU per `/v1/me` and `/v1/wallets`
 * request (`npm run bench -- api-inprocess`, bench/README.md, `api`).
 */
export function expressServer(app: Express, options: ServerOptions = {}): Server {
  return createServer(
    {
      ...options,
      IncomingMessage: bornAs(app.request, IncomingMessage) as typeof IncomingMessage,
      ServerResponse: bornAs(app.response, ServerResponse) as typeof ServerResponse,
    },
    app as RequestListener,
  );
}

/** Is `listener` an Express application (it has the prototypes to give its requests and responses)? */
export function isExpressApp(listener: RequestListener): listener is RequestListener & Express {
  const l = listener as Partial<Express> & { handle?: unknown };
  return typeof l.request === 'object' && typeof l.response === 'object' && typeof l.handle === 'function';
}

/**
 * Makes `app.listen` serve through `expressServer`, keeping Express 5's contract (a listen error
 * goes to the callback, once), so every caller of `app.listen` (the tests' harness, the benches)
 * gets the same server as `walletd serve`.
 */
export function listenBornWithPrototypes(app: Express): void {
  app.listen = ((...args: unknown[]) => {
    const server = expressServer(app);
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      let called = false;
      const done = (...a: unknown[]) => {
        if (called) return;
        called = true;
        (last as (...x: unknown[]) => void)(...a);
      };
      args[args.length - 1] = done;
      server.once('error', done);
    }
    return (server.listen as (...x: unknown[]) => Server)(...args);
  }) as Express['listen'];
}
