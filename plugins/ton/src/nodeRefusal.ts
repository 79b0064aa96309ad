import { BaseError, isPublicError, NodeCallError, triageNodeError } from '@walletd/plugin-kit';

/**
 * The one place a toncenter error at `sendBoc` becomes an API error (the wallet's history has
 * already been asked whether these bytes were applied). No answer (timeout, unreachable, HTTP
 * failure), or toncenter's own overload (429) or failure (5xx other than 500, which is how it
 * relays the lite server's verdict): 502 `node_error`. Otherwise the node refused the message:
 * its seqno is used, it expired, or the wallet does not accept its signature, which preparing
 * again fixes: 409 `conflict` with the node's reason.
 */
export function nodeRefusal(e: unknown): BaseError {
  // Said of the TON node, not "the node" as the kit's own triage words a missing answer.
  if (!(e instanceof NodeCallError) && !isPublicError(e))
    return new BaseError('node_error', `the TON node did not answer: ${(e as Error).message.slice(0, 160)}`, { cause: e });
  return triageNodeError(e, {
    aboutTheNode: (_m, { node: { status } }) => status === 429 || (status !== undefined && status > 500),
    nodeErrorText: 'the TON node did not take the message now',
    verdict: (_m, { message }) =>
      new BaseError(
        'conflict',
        `the TON node refused the message (its seqno is used, it expired or its signature is not the wallet's); prepare it again (${message.slice(0, 200)})`,
        { cause: e },
      ),
  });
}
