import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import {
  BaseError,
  ConfigError,
  INTERNAL_ERROR_CODES,
  InvariantError,
  NodeCallError,
  NodeUnavailableError,
  TransientError,
  createLogger,
} from '@walletd/core';
import express from 'express';
import { errorHandler } from './errorHandler';

/**
 * The net under the services' own wording: a `node_error` that reaches the handler without naming
 * its chain (a plugin's or a client's, whose text may quote the node's address) is shown as a
 * generic 502; the full error is in the log.
 */
describe('node errors at the error handler', () => {
  async function answer(err: Error) {
    const lines: string[] = [];
    const logger = createLogger({
      destination: new Writable({
        write(chunk, _enc, cb) {
          lines.push(String(chunk));
          cb();
        },
      }),
    });
    const app = express();
    app.get('/', () => {
      throw err;
    });
    app.use(errorHandler(logger));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      return { status: res.status, text: await res.text(), log: lines.join('') };
    } finally {
      server.close();
    }
  }

  it('renders a node_error quoting the node as a generic 502 and logs it whole', async () => {
    const inner = new NodeCallError('eth_call failed: connect ECONNREFUSED 10.0.0.5:8545', { method: 'eth_call', kind: 'unreachable' });
    for (const err of [inner, new BaseError('node_error', `the node did not answer: ${inner.message}`, { cause: inner })]) {
      const r = await answer(err);
      expect(r.status).toBe(502);
      expect(JSON.parse(r.text)).toEqual({
        statusCode: 502,
        error: 'Bad Gateway',
        code: 'node_error',
        message: 'The chain node did not answer; try again later',
      });
      expect(r.log).toContain('connect ECONNREFUSED 10.0.0.5:8545');
    }
  });

  it("keeps a service's message naming the chain", async () => {
    const r = await answer(new NodeUnavailableError('bitcoin', 'testnet', new Error('connect ECONNREFUSED 10.0.0.5:8332')));
    expect(JSON.parse(r.text)).toMatchObject({ message: 'The bitcoin/testnet node did not answer; try again later' });
    expect(r.text).not.toContain('10.0.0.5');
  });

  /**
   * Issue 44 §5: every error walletd throws is a BaseError now, but the answers stay what they were.
   * One with an internal code (an invariant, a bad config, a node call to retry) is answered as an
   * untyped error was: the generic 500 `internal`, its message and stack only in the log; a public
   * code as before, with no `retriable` field or stack in the body.
   */
  describe('the one hierarchy at the error handler', () => {
    const generic = {
      statusCode: 500,
      error: 'Internal Server Error',
      code: 'internal',
      message: 'Internal server error; the request id is in the x-request-id header',
    };

    it('answers an internal code exactly as an untyped Error, and logs it whole', async () => {
      const before = await answer(new Error('a row vanished at /srv/walletd secret=abc'));
      expect(before.status).toBe(500);
      expect(JSON.parse(before.text)).toEqual(generic);
      const internal = [
        new InvariantError('a row vanished at /srv/walletd secret=abc'),
        new ConfigError('a row vanished at /srv/walletd secret=abc'),
        new TransientError('a row vanished at /srv/walletd secret=abc'),
        ...INTERNAL_ERROR_CODES.map((c) => new BaseError(c, 'a row vanished at /srv/walletd secret=abc')),
      ];
      for (const err of internal) {
        const r = await answer(err);
        expect(r.status).toBe(500);
        expect(JSON.parse(r.text)).toEqual(generic);
        expect(r.text).not.toContain('secret');
        expect(r.text).not.toContain('at ');
        expect(r.log).toContain('unhandled error');
        expect(r.log).toContain('a row vanished');
      }
    });

    it('answers a public code as before: its status, message, code and details, no retriable flag, no stack', async () => {
      const r = await answer(
        new BaseError('unavailable', 'The database is unreachable; retry later', { retriable: true, details: { reason: 'x' } }),
      );
      expect(r.status).toBe(503);
      expect(JSON.parse(r.text)).toEqual({
        statusCode: 503,
        error: 'Service Unavailable',
        code: 'unavailable',
        message: 'The database is unreachable; retry later',
        reason: 'x',
      });
      const p = await answer(new BaseError('policy_denied', 'over the daily limit', { details: { policyIds: '3' } }));
      expect(JSON.parse(p.text)).toEqual({
        statusCode: 403,
        error: 'Forbidden',
        code: 'policy_denied',
        message: 'over the daily limit',
        policyIds: '3',
      });
    });
  });
});
