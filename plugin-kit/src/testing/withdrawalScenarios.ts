import type { AssetRef, Chain } from '../chains';

/** The withdrawal verdicts the kit asks every chain family for beyond the happy path. */
export const WITHDRAWAL_CASES = [
  'failed_on_chain',
  'pending',
  'dropped',
  'expired',
  'not-the-intent',
  'exact-fee',
  'token-without-transfer',
] as const;
export type WithdrawalCase = (typeof WITHDRAWAL_CASES)[number];

/** The plugin's own node or engine, started for the kit. Optional hooks unlock further cases. */
export interface ConformanceNode {
  rpcUrl: string;
  /** Gives `address` (walletd's display form) enough of the native asset to pay `amount` several times. */
  fund(address: string): Promise<void>;
  /** Makes a broadcast transaction final enough for `verify` to answer confirmed (mine, wait for the receipt). */
  settle(txHash: string): Promise<void>;
  stop(): Promise<void>;
  /** `failed_on_chain`: a recipient a payment to which is included but fails, once `arm` ran (after build, before broadcast). */
  failOnChain?: { recipient: string; arm(): Promise<void> };
  /** `pending`: stop including transactions in blocks until `release`. */
  hold?(): Promise<void>;
  release?(): Promise<void>;
  /** `dropped`: the node forgets a transaction it holds unmined (`hold` first). */
  drop?(txHash: string): Promise<void>;
  /** `expired`: the node forgets a transaction it holds unmined and its chain moves past the transaction's expiry (`hold` first). */
  expire?(txHash: string): Promise<void>;
}

export interface WithdrawalConformance {
  chain: Chain;
  network: string;
  asset: AssetRef;
  /** Two distinct recipients in walletd's display form. */
  recipients: [string, string];
  amount: bigint;
  /** `token-without-transfer`: a token of the chain; `verify` must not confirm a native payment as a payment of it. */
  token?: AssetRef;
  /**
   * `exact-fee` is checked on the source's balance (before − after = amount + the verdict's fee):
   * right for chains where the source pays exactly amount and fee; say why where it is not.
   */
  notCovered?: Partial<Record<WithdrawalCase, string>>;
  start(): Promise<ConformanceNode>;
}
