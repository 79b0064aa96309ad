import { NodeCallError } from '@walletd/plugin-kit';
import { nodeRefusal } from './nodeRefusal';

const method = 'sendrawtransaction';
const rpc = (code: number, message: string) => new NodeCallError(`${method}: ${message}`, { method, kind: 'rpc', rpcCode: code });

/** Bitcoin Core's (and litecoind's, dogecoind's) answers to sendrawtransaction. */
describe('bitcoin-family node errors: the caller’s refusal (4xx) or the node’s failure (502)', () => {
  it.each([
    [
      'a signature that does not verify',
      rpc(-26, 'mandatory-script-verify-flag-failed (Signature must be zero for failed CHECK(MULTI)SIG operation)'),
      'unprocessable',
    ],
    ['dust', rpc(-26, 'dust'), 'unprocessable'],
    ['an absurd fee', rpc(-25, 'Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)'), 'unprocessable'],
    ['bytes it cannot decode', rpc(-22, 'TX decode failed'), 'unprocessable'],
    ['spent coins', rpc(-25, 'bad-txns-inputs-missingorspent'), 'conflict'],
    ['a fee below the pool’s minimum', rpc(-26, 'min relay fee not met, 100 < 141'), 'conflict'],
    ['warming up', rpc(-28, 'Loading block index...'), 'node_error'],
    ['an internal error', rpc(-32603, 'Internal error'), 'node_error'],
    ['HTTP 401', new NodeCallError(`${method} answered HTTP 401`, { method, kind: 'http', status: 401 }), 'node_error'],
  ])('%s', (_name, e, code) => {
    expect(nodeRefusal(e).code).toBe(code);
  });
});
