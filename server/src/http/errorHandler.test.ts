import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { BaseError, NodeCallError, NodeUnavailableError, createLogger } from '@walletd/core';
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
});
