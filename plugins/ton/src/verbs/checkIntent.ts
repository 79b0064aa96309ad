import { Address } from '@ton/core';
import { BaseError, type WithdrawalIntent } from '@walletd/plugin-kit';
import { parseTonAddress } from '../addresses';

/**
 * Workchains that exist: the basechain (0), where walletd's wallets live, and the masterchain
 * (-1). A message to any other workchain cannot be delivered (the wallet sends ignoring errors, so
 * the fee would be spent and nothing paid). The masterchain is accepted: wallets live there
 * (validators, the elector's counterparts), a basechain wallet's message reaches them and the
 * higher forwarding fee is paid by the sender, so nothing is lost.
 */
const WORKCHAINS: ReadonlySet<number> = new Set([0, -1]);

/**
 * The refusals of a TON withdrawal that need no node: the recipient's form, a workchain that does
 * not exist, and the paying wallet itself. Returns the recipient for `build`.
 */
export function checkTonIntent(intent: WithdrawalIntent) {
  const output = intent.outputs[0];
  if (!output || intent.outputs.length !== 1) throw new BaseError('validation_failed', 'a TON withdrawal pays exactly one recipient');
  if (output.destinationTag !== undefined) throw new BaseError('validation_failed', 'a TON transfer cannot carry a destination tag');
  const to = parseTonAddress(intent.network, output.to);
  if (!to) throw new BaseError('invalid_address', `"${output.to}" is not a valid TON address for ${intent.network}`);
  if (!WORKCHAINS.has(to.workChain))
    throw new BaseError(
      'invalid_address',
      `"${output.to}" is on workchain ${to.workChain}, which does not exist: nothing can be delivered there`,
    );
  if (output.amount <= 0n) throw new BaseError('invalid_amount', 'the amount must be positive');
  const source = intent.sources[0] === undefined ? null : parseTonAddress(intent.network, intent.sources[0]);
  if (source && to.equals(source)) throw new BaseError('validation_failed', 'a TON withdrawal cannot pay its own source');
  const bounceable = Address.isFriendly(output.to) ? Address.parseFriendly(output.to).isBounceable : null;
  return { to, bounceable, amount: output.amount, memo: output.memo };
}
