import { BaseError } from '@walletd/plugin-kit';

/**
 * rippled's `submit` answered with a result that took the Payment: tes/tec applied to the open
 * ledger (a tec claims the fee; verify reports it failed), ter held for a later ledger (terQUEUED,
 * terPRE_SEQ), tefALREADY the node has these bytes.
 */
export const accepted = (engineResult: string): boolean => /^(tes|tec|ter)/.test(engineResult) || engineResult === 'tefALREADY';

/**
 * The one place rippled's refusal at `submit` becomes an API error (a result `accepted` does not
 * take, and tefPAST_SEQ for bytes the ledger does not have). tel (local: the node's queue, its
 * fee level): 502 `node_error`, try again later. tefPAST_SEQ (the sequence was used) and
 * tefMAX_LEDGER (expired before the node took it): 409 `conflict`, preparing again fixes it.
 * Anything else (tem malformed, tef other): 422 `unprocessable` with the node's result.
 */
export function nodeRefusal(engineResult: string, message: string): BaseError {
  const text = `${engineResult}: ${message}`;
  if (engineResult === 'tefPAST_SEQ')
    return new BaseError('conflict', `the account's sequence was used by another transaction; prepare it again (${text})`);
  if (engineResult === 'tefMAX_LEDGER') return new BaseError('conflict', `the Payment expired before the node took it (${text})`);
  if (engineResult.startsWith('tel')) return new BaseError('node_error', `the node did not take the Payment now (${text})`);
  return new BaseError('unprocessable', `the node refused the Payment (${text})`);
}
