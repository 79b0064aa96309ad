import type { NetworkInfo } from '@walletd/plugin-kit';

/**
 * Plans gate what a company can use. `none` cannot use the API beyond /v1/me (402). `free` is
 * limited to test networks with hard caps (403 when reached). `paid` has no hard caps: usage
 * beyond the included amounts is created normally and billed as overage.
 */
export const PLANS = ['none', 'free', 'paid'] as const;
export type Plan = (typeof PLANS)[number];
export const isPlan = (s: string): s is Plan => (PLANS as readonly string[]).includes(s);

export interface PlanLimits {
  testnetsOnly: boolean;
  /** Hard caps; null means none (billed as overage above the included amount). */
  maxWallets: number | null;
  maxAddressesPerWallet: number | null;
  maxWebhooks: number | null;
}

export const PLAN_LIMITS: Record<Exclude<Plan, 'none'>, PlanLimits> = {
  free: { testnetsOnly: true, maxWallets: 5, maxAddressesPerWallet: 100, maxWebhooks: 3 },
  paid: { testnetsOnly: false, maxWallets: null, maxAddressesPerWallet: null, maxWebhooks: null },
};

/** `info`: the network as the loaded plugins declare it (`registry.chainTable().network(...)`). */
export function planAllowsNetwork(plan: Plan, info: NetworkInfo | undefined): boolean {
  if (plan === 'none') return false;
  if (!info) return false;
  return !PLAN_LIMITS[plan].testnetsOnly || info.testnet;
}
