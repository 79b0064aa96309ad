import { BaseError, type WithdrawalVerbs, refusingUnreadableSigned } from '@walletd/plugin-kit';
import { broadcastEvmWithdrawal } from './broadcast';
import { buildEvmWithdrawal } from './build';
import { checkEvmIntent } from './checkIntent';
import { checkSignedEvmWithdrawal } from './checkSigned';
import { quoteEvmFee } from './quoteFee';
import { replaceEvmWithdrawal } from './replace';
import { signEvmWithdrawal } from './sign';
import { verifyEvmWithdrawal } from './verify';

/**
 * The EVM withdrawal verbs, one per file: one recipient per transaction from the address holding
 * the funds, EIP-1559 fees (see build.ts).
 */
export function createEvmWithdrawals(
  declaredChainId: (chain: string, network: string) => number | undefined = () => undefined,
): WithdrawalVerbs {
  return refusingUnreadableSigned('EVM transaction', {
    checkIntent: checkEvmIntent,
    // The chain id signed is the node's (EIP-155): for a network declared in chains[] it must be the declared one.
    build: async (intent, reader, context) => {
      const built = await buildEvmWithdrawal(intent, reader, context);
      const want = declaredChainId(intent.chain, intent.network);
      const got = (built.payload as { chainId: string }).chainId;
      if (want !== undefined && got !== String(want))
        throw new BaseError(
          'unavailable',
          `the node of ${intent.chain}/${intent.network} reports chain id ${got}, chains[] declares ${want}: nothing is signed for another network`,
        );
      return built;
    },
    quoteFee: quoteEvmFee,
    sign: signEvmWithdrawal,
    checkSigned: checkSignedEvmWithdrawal,
    broadcast: broadcastEvmWithdrawal,
    verify: verifyEvmWithdrawal,
    replace: replaceEvmWithdrawal,
  });
}
