import type { DepositCase, WithdrawalCase } from '@walletd/plugin-kit/testing';

/**
 * What the non-EVM families' scenarios do not exercise yet, said per case (the kit fails a case
 * with no scenario and no reason). The EVM family covers them all (evmScenario.ts); these lists
 * are the work left, family by family (plugins/README.md, "What the kit checks").
 */
const NO_BLOCK = "no scenario block in this family's recorded fixtures yet";
const NO_HOOK = "this family's node double has no hook for it yet";

export const depositGaps = (
  family: string,
  has: DepositCase[],
  why: Partial<Record<DepositCase, string>> = {},
): Partial<Record<DepositCase, string>> => {
  const all: DepositCase[] = [
    'failed-transaction',
    'unlisted-token',
    'look-alike-token',
    'linked-headers',
    'reorg',
    'amount-above-2^53',
    'from',
    'log-index',
    'memo',
    'destination-tag',
    'own-change',
    'internal-movement',
  ];
  return Object.fromEntries(all.filter((c) => !has.includes(c)).map((c) => [c, why[c] ?? `${family}: ${NO_BLOCK}`]));
};

export const withdrawalGaps = (
  family: string,
  why: Partial<Record<WithdrawalCase, string>> = {},
): Partial<Record<WithdrawalCase, string>> => ({
  failed_on_chain: `${family}: ${NO_HOOK}`,
  pending: `${family}: ${NO_HOOK}`,
  dropped: `${family}: ${NO_HOOK}`,
  expired: `${family}: ${NO_HOOK}`,
  'token-without-transfer': `${family}: no token configured for its withdrawal scenario yet`,
  ...why,
});
