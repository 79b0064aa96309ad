/**
 * Transactions, withdrawals and votes as the console answers them (server/src/wallets/transactionRoutes.ts,
 * server/src/withdrawals/withdrawalRoutes.ts, server/src/withdrawals/requests/requestRoutes.ts).
 * Types only (see ../views.ts).
 */
import type { InboxRequest, WithdrawalPeople } from '../views';
import type { ConsoleAssetRef } from './overview';

/** The answer to a vote: the request after it, and the withdrawal when this vote reached the quorum. */
export interface ConsoleVoteAnswer {
  request: InboxRequest;
  message: string;
  /** With a refusal's code: the policies that asked for it (comma-separated ids). */
  code?: string;
  policyIds?: string;
  prepared: boolean;
  /** Why the approved request is not yet prepared (the quorum was reached, the node or the funds were not there). */
  reason?: string;
  /** The quorum's `send`: whether the withdrawal went out at once, and why not. */
  sent?: boolean;
  notSent?: string;
  /** The withdrawal this vote prepared, in the API's view. */
  withdrawal: ConsoleWithdrawalView | null;
}

/** A deposit or withdrawal on chain (GET /v1/transactions' row, with the wallet's name). */
export interface ConsoleTransaction {
  id: number;
  kind: 'deposit' | 'withdrawal';
  withdrawalId: number | null;
  walletId: number;
  walletName: string | null;
  addressId: number | null;
  chain: string;
  network: string;
  txHash: string;
  eventIndex: number;
  direction: string;
  eventType: string;
  asset: ConsoleAssetRef;
  amount: string;
  fromAddress: string | null;
  toAddress: string | null;
  /** A withdrawal's recipients, where it has several. */
  outputs?: { toAddress: string; amount: string; memo?: string; destinationTag?: number }[];
  blockNumber: number | null;
  status: string;
  confirmations: number;
  reason: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A page of transactions (`GET /console/api/transactions`); `next` is the `after` of the following page. */
export interface ConsoleTransactionPage {
  transactions: ConsoleTransaction[];
  next: string | null;
}

/** A withdrawal in the API's view (`GET /v1/withdrawals/:id`; server/src/withdrawals/view.ts). */
export interface ConsoleWithdrawalView {
  id: number;
  walletId: number;
  requestId: number | null;
  kind: 'payout' | 'sweep' | 'gas_topup';
  sweepRuleId: number | null;
  status: string;
  chain: string;
  network: string;
  asset: ConsoleAssetRef;
  amount: string;
  toAddress: string | null;
  /** Each recipient, with the memo and destination tag the transaction carries for it, where present. */
  outputs: { toAddress: string; amount: string; memo?: string; destinationTag?: number }[];
  fromAddress: string;
  sourceAddresses: string[];
  idempotencyKey: string | null;
  fee: { amount: string; asset: ConsoleAssetRef } | null;
  feeEstimate: { amount: string; asset: ConsoleAssetRef } | null;
  txHash: string | null;
  confirmations: number | null;
  reason: string | null;
  lastError: string | null;
  signedBy: string | null;
  /** While it can still be signed elsewhere (status prepared): what to sign, and by which addresses. */
  unsignedTransaction: { payload: unknown; signers: { address: string; derivationPath: string }[] } | null;
  createdAt: string;
  updatedAt: string;
  signedAt: string | null;
  broadcastAt: string | null;
  confirmedAt: string | null;
  /** Waiting behind the earlier nonce of this in-flight withdrawal of the same source (EVM). */
  blockedBy?: number;
  /** One withdrawal's page only, once sped up or cancelled on chain: every transaction on its nonce. */
  attempts?: { txHash: string; kind: 'original' | 'speed_up' | 'cancel'; feeCap: { amount: string; asset: ConsoleAssetRef }; at: string }[];
  /** One withdrawal's page only: each status it went through. */
  history?: { status: string; at: string; details: Record<string, unknown> | null }[];
}

/** A withdrawal as the console lists it: the API's view, the wallet's name, and who asked and approved (WithdrawalPeople). */
export interface ConsoleWithdrawal extends ConsoleWithdrawalView, WithdrawalPeople {
  walletName: string | null;
  /** Present when the source address's key signs outside walletd: in the PKCS#11 token (issue 45 §3) or in AWS KMS (§4). */
  fromKeyHeldIn?: 'token' | 'kms';
}

/** A page of withdrawals (`GET /console/api/withdrawals`); `next` is the `after` of the following page. */
export interface ConsoleWithdrawalPage {
  withdrawals: ConsoleWithdrawal[];
  next: string | null;
}
