import { NodeCallError } from '@walletd/plugin-kit';
import { nodeRefusal } from './nodeRefusal';

const method = 'sendTransaction';
const rpc = (code: number, message: string) => new NodeCallError(`${method}: ${message}`, { method, kind: 'rpc', rpcCode: code });

describe('Solana node errors: the caller’s refusal (4xx) or the node’s failure (502)', () => {
  it.each([
    ['an expired blockhash', rpc(-32002, 'Transaction simulation failed: Blockhash not found'), 'conflict'],
    [
      'a shortfall',
      rpc(-32002, 'Transaction simulation failed: Error processing Instruction 2: custom program error: 0x1'),
      'insufficient_funds',
    ],
    [
      'a fee payer without SOL',
      rpc(-32002, 'Transaction simulation failed: Attempt to debit an account but found no record of a prior credit.'),
      'insufficient_funds',
    ],
    [
      'rent',
      rpc(-32002, 'Transaction simulation failed: Transaction results in an account (1) with insufficient funds for rent'),
      'insufficient_funds',
    ],
    [
      'a program error',
      rpc(-32002, 'Transaction simulation failed: Error processing Instruction 0: invalid account data for instruction'),
      'unprocessable',
    ],
    ['a signature that does not verify', rpc(-32003, 'Transaction signature verification failure'), 'unprocessable'],
    ['an unhealthy node', rpc(-32005, 'Node is behind by 42 slots'), 'node_error'],
    ['a context slot not reached', rpc(-32016, 'Minimum context slot has not been reached'), 'node_error'],
    ['a timeout', new NodeCallError(`${method} failed: timed out after 15000 ms`, { method, kind: 'timeout' }), 'node_error'],
  ])('%s', (_name, e, code) => {
    expect(nodeRefusal(e).code).toBe(code);
  });

  it('rent is told apart from a plain shortfall', () => {
    expect(nodeRefusal(rpc(-32002, 'Transaction simulation failed: InsufficientFundsForRent { account_index: 1 }')).message).toMatch(
      /rent-exempt/,
    );
  });
});
