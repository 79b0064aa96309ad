import { BaseError, isPublicError } from '../errors';
import { NodeCallError } from './nodeCallError';

/**
 * The node's answer inside a failed call, for a plugin's `nodeRefusal` to read; or, when there is
 * none, the error to report as it is: a BaseError unchanged (already typed), anything else a 502
 * `node_error` (the node did not answer).
 */
export function nodeAnswerOf(e: unknown): NodeCallError | BaseError {
  if (e instanceof NodeCallError) return e;
  if (isPublicError(e)) return e;
  return new BaseError('node_error', `the node did not answer: ${(e as Error).message.slice(0, 160)}`, { cause: e });
}
