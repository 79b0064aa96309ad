import { BaseError, type WithdrawalIntent } from '@walletd/plugin-kit';
import { evmBurnReason } from '../burnAddress';

/** The refusals of an EVM withdrawal that need no node: one recipient, not an address that burns what it gets. */
export function checkEvmIntent(intent: WithdrawalIntent): void {
  const [output] = intent.outputs;
  if (!output || intent.outputs.length !== 1) throw new BaseError('validation_failed', 'an EVM withdrawal pays exactly one recipient');
  const burn = evmBurnReason(output.to);
  if (burn) throw new BaseError('invalid_address', `${output.to} is ${burn}: no key controls it, so what is paid there is lost`);
}
