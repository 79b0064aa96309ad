import type { ChainReader, WithdrawalIntent } from '@walletd/plugin-kit';
import { quoteEvm } from '../quote';
import type { EvmReader } from '../reader';
import { checkEvmIntent } from './checkIntent';

/** The fee `build` would quote, without its balance checks (a gas station's top-up). */
export async function quoteEvmFee(intent: WithdrawalIntent, reader: ChainReader): Promise<bigint> {
  checkEvmIntent(intent);
  return (await quoteEvm(reader as EvmReader, intent)).fee;
}
