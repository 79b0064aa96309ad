import { NodeCallError } from '@walletd/plugin-kit';
import { nodeRefusal } from './nodeRefusal';

const method = 'author_submitExtrinsic';
// The JSON-RPC client joins a substrate node's `message` and `data` with ': '.
const rpc = (code: number, message: string) => new NodeCallError(`${method}: ${message}`, { method, kind: 'rpc', rpcCode: code });

describe('Polkadot node errors: the caller’s refusal (4xx) or the node’s failure (502)', () => {
  it.each([
    ['fees', rpc(1010, 'Invalid Transaction: Inability to pay some fees (e.g. account balance too low)'), 'insufficient_funds'],
    ['a bad signature', rpc(1010, 'Invalid Transaction: Transaction has a bad signature'), 'unprocessable'],
    ['an ancient birth block', rpc(1010, 'Invalid Transaction: Transaction has an ancient birth block'), 'conflict'],
    ['a call the runtime refuses', rpc(1010, 'Invalid Transaction: Transaction call is not expected'), 'unprocessable'],
    [
      'an unknown transaction',
      rpc(1011, 'Unknown Transaction Validity: Could not lookup information required to validate the transaction'),
      'unprocessable',
    ],
    ['priority too low', rpc(1014, 'Priority is too low: (4 vs 4)'), 'conflict'],
    ['a full block', rpc(1010, 'Invalid Transaction: ExhaustsResources'), 'node_error'],
    ['a full pool', rpc(1016, "Immediately Dropped: The transaction couldn't enter the pool because of the limit"), 'node_error'],
    ['an internal error', rpc(-32603, 'Internal error'), 'node_error'],
    ['no connection', new NodeCallError(`${method} failed: ECONNREFUSED`, { method, kind: 'unreachable' }), 'node_error'],
  ])('%s', (_name, e, code) => {
    expect(nodeRefusal(e).code).toBe(code);
  });
});
