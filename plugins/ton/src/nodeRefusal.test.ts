import { NodeCallError } from '@walletd/plugin-kit';
import { nodeRefusal } from './nodeRefusal';

const method = 'sendBoc';

describe('TON node errors at sendBoc: the caller’s refusal (409) or the node’s failure (502)', () => {
  it.each([
    [
      'the lite server refuses the external message',
      new NodeCallError(`${method}: LITE_SERVER_UNKNOWN: cannot apply external message to current state`, {
        method,
        kind: 'rpc',
        status: 500,
      }),
      'conflict',
    ],
    ['toncenter’s rate limit', new NodeCallError(`${method}: Ratelimit exceed`, { method, kind: 'rpc', status: 429 }), 'node_error'],
    ['a gateway failure', new NodeCallError(`${method}: bad gateway`, { method, kind: 'rpc', status: 502 }), 'node_error'],
    [
      'a timeout (was 409 before)',
      new NodeCallError(`${method} failed: timed out after 15000 ms`, { method, kind: 'timeout' }),
      'node_error',
    ],
    ['no connection', new NodeCallError(`${method} failed: ECONNREFUSED`, { method, kind: 'unreachable' }), 'node_error'],
  ])('%s', (_name, e, code) => {
    expect(nodeRefusal(e).code).toBe(code);
  });
});
