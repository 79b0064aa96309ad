import { BaseError, type WithdrawalIntent } from '@walletd/plugin-kit';
import { tronMatchKey, validateTronAddress } from '../addresses';

/** 0x41 followed by 20 zero bytes (T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb): no key controls it, as on EVM. */
const ZERO_KEY = '0'.repeat(40);

/**
 * The refusals of a Tron withdrawal that need no node: the recipient's form, the zero address (what
 * is paid there is burnt), and a TRX transfer to the paying address (the node refuses it). A
 * TRC-20 transfer to its own sender is a valid contract call and stays allowed.
 */
export function checkTronIntent(intent: WithdrawalIntent): void {
  const [output] = intent.outputs;
  if (!output || intent.outputs.length !== 1) throw new BaseError('validation_failed', 'a Tron withdrawal pays exactly one recipient');
  if (output.destinationTag !== undefined) throw new BaseError('validation_failed', 'a Tron transaction cannot carry a destination tag');
  if (!validateTronAddress(output.to)) throw new BaseError('invalid_address', `"${output.to}" is not a valid Tron address`);
  if (output.amount <= 0n) throw new BaseError('invalid_amount', 'the amount must be positive');
  const to = tronMatchKey(output.to);
  if (to === ZERO_KEY)
    throw new BaseError('invalid_address', `${output.to} is the zero address: no key controls it, so what is paid there is lost`);
  const trx = !intent.asset.contractAddress;
  if (trx && output.amount > 2n ** 63n - 1n) throw new BaseError('invalid_amount', 'a TRX amount is an int64 in sun');
  const source = intent.sources[0];
  if (trx && source !== undefined && validateTronAddress(source) && tronMatchKey(source) === to)
    throw new BaseError('validation_failed', 'Tron refuses a TRX transfer to its own sender');
}
