import { BaseError, isPublicError } from '../errors';
import type { ChainReader, WithdrawalVerbs } from './contract';

/**
 * `checkSigned` reads bytes the caller sent: whatever a decoder or a curve library throws on them
 * (an EVM signature with r = s = 0, a truncated protobuf, a BOC that is no cell) is the caller's
 * mistake, a 422 `unprocessable` naming why, never a 500. The check makes no node call, so
 * nothing it throws is the node's. BaseErrors it throws itself pass unchanged.
 */
export function refusingUnreadableSigned<R extends ChainReader, V extends WithdrawalVerbs<R>>(what: string, verbs: V): V {
  const check = verbs.checkSigned.bind(verbs);
  return {
    ...verbs,
    checkSigned(prepared, raw, fresh) {
      try {
        return check(prepared, raw, fresh);
      } catch (e) {
        if (isPublicError(e)) throw e;
        const reason = (e instanceof Error ? e.message : String(e)).slice(0, 200);
        throw new BaseError('unprocessable', `signedTransaction is not a valid ${what}: ${reason}`, { cause: e });
      }
    },
  };
}
