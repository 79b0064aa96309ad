import { BaseError, isPublicError, NodeCallError } from '@walletd/plugin-kit';

/**
 * The one place a toncenter error at `sendBoc` becomes an API error (the wallet's history has
 * already been asked whether these bytes were applied). No answer (timeout, unreachable, HTTP
 * failure), or toncenter's own overload (429) or failure (5xx other than 500, which is how it
 * relays the lite server's verdict): 502 `node_error`. Otherwise the node refused the message:
 * its seqno is used, it expired, or the wallet does not accept its signature, which preparing
 * again fixes: 409 `conflict` with the node's reason.
 */
export function nodeRefusal(e: unknown): BaseError {
  if (!(e instanceof NodeCallError)) {
    if (isPublicError(e)) return e;
    return new BaseError('node_error', `the TON node did not answer: ${(e as Error).message.slice(0, 160)}`, { cause: e });
  }
  const { kind, status } = e.node;
  if (kind !== 'rpc' || status === 429 || (status !== undefined && status > 500))
    return new BaseError('node_error', `the TON node did not take the message now: ${e.message.slice(0, 200)}`, { cause: e });
  return new BaseError(
    'conflict',
    `the TON node refused the message (its seqno is used, it expired or its signature is not the wallet's); prepare it again (${e.message.slice(0, 200)})`,
    { cause: e },
  );
}
