import { BaseError, triageNodeError } from '@walletd/plugin-kit';

/**
 * Codes about the node, not the extrinsic: our request, a missing method, an internal failure, or
 * a pool too full to take it now (1016 "immediately dropped").
 */
const NODE_FAILURE_CODES: ReadonlySet<number> = new Set([-32700, -32600, -32601, -32603, 1016]);

/**
 * The one place a Polkadot node's error becomes an API error. No answer (timeout, unreachable,
 * HTTP failure), an answer about the node itself, or a full block (1010 ExhaustsResources: the
 * same extrinsic fits a later one): 502 `node_error`. A refusal of this extrinsic (1010 "Invalid
 * Transaction" with its reason in `data`, 1011 "Unknown Transaction", 1014 priority too low) is the
 * caller's: 422 `insufficient_funds` (Payment), 409 `conflict` when signing again fixes it (an
 * ancient birth block, a pool slot taken), else 422 `unprocessable` with the node's reason. The
 * reason inside 1010 is text only, so it is read here and nowhere else.
 */
export function nodeRefusal(e: unknown): BaseError {
  return triageNodeError(e, {
    nodeFailureCodes: NODE_FAILURE_CODES,
    aboutTheNode: (m) => m.includes('exhaustsresources'),
    nodeErrorText: 'the node did not take the transaction now',
    verdict: (m, answer) => {
      const message = answer.message;
      if (m.includes('inability to pay some fees') || m.includes('payment'))
        return new BaseError(
          'insufficient_funds',
          'the sender cannot pay the fee (the node refused the transaction: Inability to pay some fees)',
        );
      if (m.includes('bad signature') || m.includes('badproof') || m.includes('bad proof'))
        return new BaseError('unprocessable', 'the node refused the transaction: it has a bad signature');
      if (m.includes('ancientbirthblock') || m.includes('ancient birth block') || answer.node.rpcCode === 1014)
        return new BaseError('conflict', `the transaction can no longer be included (${message.slice(0, 120)}): sign it again`);
      return undefined;
    },
  });
}
