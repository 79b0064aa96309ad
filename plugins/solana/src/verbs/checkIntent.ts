import { BaseError, type WithdrawalIntent } from '@walletd/plugin-kit';
import { solanaBurnReason } from '../burnAddress';

/** The refusals of a Solana withdrawal that need no node: one recipient, not an account that keeps what it is sent. */
export function checkSolanaIntent(intent: WithdrawalIntent): void {
  const [output] = intent.outputs;
  if (!output || intent.outputs.length !== 1) throw new BaseError('validation_failed', 'a Solana withdrawal pays exactly one recipient');
  const burn = solanaBurnReason(output.to);
  if (burn) throw new BaseError('invalid_address', `${output.to} is ${burn}: no key controls it, so what is paid there is lost`);
}
