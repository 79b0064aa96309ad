import { BaseError, isBaseError } from '../errors';

/**
 * A block the node answered only in part (EVM: its call traces failed, came back null, or belong
 * to another block). It is a failed read, never an empty one: the follower commits nothing, retries
 * like any node error, and `/readyz` shows `reason` (e.g. `traces_unavailable`). Thrown in the
 * detect worker too: the indexer carries `details.reason` back across the thread.
 */
export function unreadableBlockError(reason: string, message: string): BaseError {
  return new BaseError('node_error', message, { details: { reason } });
}

/**
 * The node refuses something the chain's configuration needs (EVM: neither trace method with
 * `internalTransfers: "trace"`). Thrown by `ChainReader.probe`; the indexer stops following the
 * chain with `reason` rather than advance past blocks it cannot fully read.
 */
export function nodeRefusedError(reason: string, message: string): BaseError {
  return new BaseError('unavailable', message, { details: { reason, refused: true } });
}

/** The reason a failed read or a refusal names (`unreadableBlockError`, `nodeRefusedError`), if any. */
export function readFailureReason(err: unknown): string | null {
  if (!isBaseError(err) || (err.code !== 'node_error' && err.code !== 'unavailable')) return null;
  const reason = err.details?.reason;
  return typeof reason === 'string' ? reason : null;
}

export const isNodeRefusal = (err: unknown): boolean => isBaseError(err) && err.code === 'unavailable' && err.details?.refused === true;
