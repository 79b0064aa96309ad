import { BaseError } from '@walletd/plugin-kit';

/**
 * The one place java-tron's refusal at `broadcasthex` (`code`, `message`) becomes an API error a
 * caller can act on: the transaction's own faults 422/409, the node's state (busy, no peers) 502.
 */
export function nodeRefusal(code: string, message: string): BaseError {
  const text = `${code}${message ? `: ${message.slice(0, 200)}` : ''}`;
  const m = message.toLowerCase();
  switch (code) {
    case 'BANDWITH_ERROR':
      return new BaseError('insufficient_funds', `not enough TRX for bandwidth, a new account or the memo fee (${text})`);
    case 'CONTRACT_VALIDATE_ERROR':
      if (m.includes('balance is not sufficient') || m.includes('insufficient'))
        return new BaseError('insufficient_funds', `the source holds too little for this transfer (${text})`);
      return new BaseError('unprocessable', `the node refused the transaction as invalid (${text})`);
    case 'SIGERROR':
      return new BaseError('unprocessable', `the node refused the signature (${text})`);
    case 'TAPOS_ERROR':
      return new BaseError('conflict', `the transaction's reference block is not on the node's chain; prepare it again (${text})`);
    case 'TRANSACTION_EXPIRATION_ERROR':
      return new BaseError('conflict', `the transaction expired before the node took it; prepare it again (${text})`);
    case 'TOO_BIG_TRANSACTION_ERROR':
    case 'CONTRACT_EXE_ERROR':
      return new BaseError('unprocessable', `the node refused the transaction (${text})`);
    default:
      // SERVER_BUSY, NO_CONNECTION, NOT_ENOUGH_EFFECTIVE_CONNECTION, BLOCK_UNSOLIDIFIED, OTHER_ERROR: try again later.
      return new BaseError('node_error', `the node did not take the transaction (${text})`);
  }
}
