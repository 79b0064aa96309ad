import { BaseError, type BuildContext, type ChainReader, type UnsignedWithdrawal, type WithdrawalIntent } from '@walletd/plugin-kit';
import { quoteEvm } from '../quote';
import type { EvmReader } from '../reader';
import { checkEvmIntent } from './checkIntent';

/**
 * One recipient per EVM transaction; the source is the address holding the funds (the first of
 * `sources`). Fees: EIP-1559 with twice the current base fee as the cap, so the transaction stays
 * valid through a few full blocks; `fee` is that upper bound until `verify` reports the real one.
 */
export async function buildEvmWithdrawal(
  intent: WithdrawalIntent,
  reader: ChainReader,
  context?: BuildContext,
): Promise<UnsignedWithdrawal> {
  const evm = reader as EvmReader;
  checkEvmIntent(intent);
  const [output] = intent.outputs;
  const from = intent.sources[0];
  const token = intent.asset.contractAddress;
  // First, so a token amount above the balance reads as that, not as a failed gas estimate.
  if (token && output && from && (await evm.balanceOf(from, intent.asset)) < output.amount)
    throw new BaseError('insufficient_funds', `${from} holds too little ${intent.asset.symbol}`);
  const { payload, fee, from: source } = await quoteEvm(evm, intent, context);
  // Refuse before anything is signed: the node's estimate does not always check balances.
  const native = await evm.balanceOf(source, { key: '', symbol: '', decimals: 0, contractAddress: null });
  if (native < BigInt(payload.value) + fee)
    throw new BaseError('insufficient_funds', `${from} holds too little ${token ? 'native currency for gas' : 'for the amount plus gas'}`);
  return { intent, payload, fee, sourceAddresses: [source] };
}
