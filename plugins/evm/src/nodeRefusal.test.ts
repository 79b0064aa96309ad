import { NodeCallError } from '@walletd/plugin-kit';
import { nodeRefusal } from './nodeRefusal';

const rpc = (method: string, code: number, message: string) =>
  new NodeCallError(`${method}: ${message}`, { method, kind: 'rpc', rpcCode: code });
const codeOf = (e: unknown) => nodeRefusal(e).code;

/** What geth and anvil answer, and what a node that does not answer throws. */
describe('EVM node errors: the caller’s refusal (4xx) or the node’s failure (502)', () => {
  it.each([
    ['a revert in the gas estimate (anvil, geth: code 3)', rpc('eth_estimateGas', 3, 'execution reverted: 0x'), 'unprocessable'],
    ['a revert worded by -32000', rpc('eth_estimateGas', -32000, 'execution reverted'), 'unprocessable'],
    ['intrinsic gas too low', rpc('eth_sendRawTransaction', -32000, 'intrinsic gas too low'), 'unprocessable'],
    ['funds', rpc('eth_sendRawTransaction', -32000, 'insufficient funds for gas * price + value'), 'insufficient_funds'],
    ['nonce used', rpc('eth_sendRawTransaction', -32000, 'nonce too low'), 'conflict'],
    ['underpriced', rpc('eth_sendRawTransaction', -32000, 'replacement transaction underpriced'), 'conflict'],
    ['the node’s pool is full', rpc('eth_sendRawTransaction', -32000, 'txpool is full'), 'node_error'],
    ['an internal error', rpc('eth_estimateGas', -32603, 'internal error'), 'node_error'],
    ['a provider’s rate limit', rpc('eth_estimateGas', -32005, 'limit exceeded'), 'node_error'],
    [
      'a timeout',
      new NodeCallError('eth_estimateGas failed: timed out after 15000 ms', { method: 'eth_estimateGas', kind: 'timeout' }),
      'node_error',
    ],
    [
      'no connection',
      new NodeCallError('eth_estimateGas failed: ECONNREFUSED', { method: 'eth_estimateGas', kind: 'unreachable' }),
      'node_error',
    ],
    ['an error that is no node answer', new Error('socket hang up'), 'node_error'],
  ])('%s', (_name, e, code) => {
    expect(codeOf(e)).toBe(code);
  });

  it('a refusal names the node’s reason', () => {
    expect(nodeRefusal(rpc('eth_estimateGas', 3, 'execution reverted: not payable')).message).toBe(
      'the node refused the transaction: eth_estimateGas: execution reverted: not payable',
    );
  });
});
