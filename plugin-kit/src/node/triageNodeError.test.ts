import { BaseError } from '../errors';
import { NodeCallError } from './nodeCallError';
import { triageNodeError } from './triageNodeError';

const rpc = (message: string, rpcCode: number) => new NodeCallError(message, { method: 'send', kind: 'rpc', rpcCode });
const triage = {
  nodeFailureCodes: new Set([-32603]),
  aboutTheNode: (m: string) => m.includes('busy'),
  nodeErrorText: 'the node did not answer',
  verdict: (m: string) => (m.includes('nonce') ? new BaseError('conflict', 'the nonce was used') : undefined),
};

describe('triageNodeError: the one shape of every plugin nodeRefusal', () => {
  it('no answer (a timeout, an unreachable node) is 502 node_error, worded by the plugin', () => {
    const e = triageNodeError(new NodeCallError('timed out after 10 ms', { method: 'send', kind: 'timeout' }), triage);
    expect([e.code, e.message]).toEqual(['node_error', 'the node did not answer: timed out after 10 ms']);
  });

  it('an answer about the node itself (its codes, its own words) is 502, never the caller', () => {
    expect(triageNodeError(rpc('internal error', -32603), triage).code).toBe('node_error');
    expect(triageNodeError(rpc('node is busy', -32000), triage).code).toBe('node_error');
  });

  it('a verdict on the transaction is the chain plugin own, else 422 with the node reason', () => {
    expect(triageNodeError(rpc('nonce too low', -32000), triage).code).toBe('conflict');
    const e = triageNodeError(rpc('execution reverted', 3), triage);
    expect([e.code, e.message]).toEqual(['unprocessable', 'the node refused the transaction: execution reverted']);
  });

  it('passes a typed error unchanged and makes anything else a node_error', () => {
    const typed = new BaseError('insufficient_funds', 'too little');
    expect(triageNodeError(typed, triage)).toBe(typed);
    expect(triageNodeError(new Error('socket hang up'), triage).code).toBe('node_error');
  });
});
