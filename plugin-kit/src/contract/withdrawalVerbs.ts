import type { AssetRef, Chain } from '../chains';
import type { WalletSecret } from './chainDefinition';
import type { ChainReader } from './reader';

/**
 * Withdrawal verbs: `build` makes an unsigned transaction for an intent (fee estimate, nonce or
 * coin selection), `sign` signs it with keys derived from the wallet seed, `checkSigned` accepts a
 * transaction signed elsewhere only when it pays exactly the intent, `broadcast` publishes it, and
 * `verify` judges a published transaction against the intent (right asset, recipients and exact
 * amounts, success) before it is reported as confirmed. Amounts are bigint base units; `outputs`
 * covers several recipients (UTXO). The service guarantees the verbs run for one withdrawal at a
 * time and that a signed transaction is stored before `broadcast` is called.
 */
export interface WithdrawalIntent {
  chain: Chain;
  network: string;
  asset: AssetRef;
  /** One per recipient; a memo or tag only where the chain's capabilities allow (the API checks). */
  outputs: WithdrawalOutput[];
  /** Addresses that may fund it, primary first (several on UTXO chains). */
  sources: string[];
  /**
   * Chains with change (UTXO): the wallet's internal change address (`deriveChangeAddress`), which
   * the service watches as its own; change goes to the primary source when absent. An output to it
   * inside the wallet's own withdrawal is an internal movement, never a deposit.
   */
  change?: string;
}

/** What a consolidation sweep gathers (see `WithdrawalVerbs.consolidate`). Amounts in base units. */
export interface ConsolidationRequest {
  chain: Chain;
  network: string;
  asset: AssetRef;
  to: string;
  /** Deposit addresses, each taken whole or not at all. */
  sources: string[];
  threshold: bigint;
  /** Base units per virtual byte; absent: the node's estimate, capped (the plugin documents its cap). */
  feeRate?: bigint;
}

export interface WithdrawalOutput {
  to: string;
  amount: bigint;
  memo?: string;
  destinationTag?: number;
}

/**
 * The last moment a signed transaction can be included (Solana blockhash, XRP
 * `LastLedgerSequence`, Tron `expiration`, TON `valid_until`, Polkadot mortal era): `verify`
 * answers `rejected`/`expired` once it is provably past on a final view, and the tracker never
 * re-sends it.
 */
export interface WithdrawalExpiry {
  height?: bigint;
  /** ISO-8601. */
  time?: string;
}

export interface UnsignedWithdrawal {
  intent: WithdrawalIntent;
  /** Plugin-specific, JSON-serialisable (e.g. an EVM transaction request, a PSBT). */
  payload: unknown;
  /** The most the transaction can cost in the native asset (the real fee comes from `verify`). */
  fee: bigint;
  /**
   * Every address the transaction spends from. On account chains the first pays the amount and
   * the last the fee (Solana's fee payer after a token's source): the service reserves each there.
   */
  sourceAddresses: string[];
  expiresAt?: WithdrawalExpiry;
}

export interface SignedWithdrawal {
  raw: string;
  txHash: string;
}

/**
 * What else of the wallet is in flight: the signed, not yet final withdrawals from the same
 * wallet. A plugin keeps clear of them (EVM: the next nonce after theirs; UTXO: their inputs).
 */
export interface BuildContext {
  inFlight: UnsignedWithdrawal[];
}

/**
 * A replacement of a published, not yet mined transaction on the same nonce (chains without a
 * validity window): `speed_up` pays the same intent with higher fees, `cancel` pays nothing (EVM:
 * a zero-value transfer from the source to itself; UTXO: every input back to the wallet's change).
 * `maxFeePerGas` (EVM, base units per gas) and `maxFeeRate` (UTXO, base units per vbyte): the
 * caller's cap.
 */
export interface ReplaceRequest {
  kind: 'speed_up' | 'cancel';
  maxFeePerGas?: bigint;
  maxFeeRate?: bigint;
  /** Auto-bump: the new fees at least this many thousandths of the replaced ones (1250: ×1.25), within the cap. */
  factorPermille?: bigint;
}

/** A signed transaction found to pay the intent, with the payload as signed (nonce, fees). */
export interface CheckedSignedWithdrawal {
  signed: SignedWithdrawal;
  payload: unknown;
  fee: bigint;
  /** The signed transaction's own validity limit, where the chain has one. */
  expiresAt?: WithdrawalExpiry;
}

/**
 * `pending`: known to the node, not (yet) paid, or mined but not the intent (see `verify`): the
 * reservation stays. `missing`: the node does not know the transaction
 * and it can still land (the service re-sends the same signed bytes). `rejected`: it will never
 * pay (reverted, its nonce or inputs spent by another transaction).
 */
export interface WithdrawalVerdict {
  status: 'pending' | 'missing' | 'confirmed' | 'rejected';
  confirmations: number;
  fee?: bigint;
  /** The block that includes it, when mined (kept so a later disappearance reads as a reorg). */
  blockNumber?: bigint;
  /**
   * The transaction's hash on chain, where it differs from the signed bytes' id (TON: the wallet's
   * transaction, not the external message). The service records it from then on (events, search);
   * `verify` must still recognise the signed id it was called with.
   */
  txHash?: string;
  reason?: 'reorg' | 'mempool_dropped' | 'failed_on_chain' | 'expired' | 'provider_error';
}

export interface VerifyContext {
  /** The transaction was seen in a block before: vanishing now means a reorg removed it. */
  seenInBlock: boolean;
}

export interface WithdrawalVerbs<R extends ChainReader = ChainReader> {
  /**
   * What can be refused without a node (a tag in the address against the output's, a payment to its
   * own source, a destination that burns funds): throws the BaseError `build` would. `build` runs
   * it first; the server runs it on a withdrawal request too, which reaches `build` only after its
   * approval. `sources` is empty there when the paying address is not known yet (UTXO and account
   * chains choose it by balance at prepare). Optional: a plugin without it is checked at `build`.
   */
  checkIntent?(intent: WithdrawalIntent): void;
  build(intent: WithdrawalIntent, reader: R, context?: BuildContext): Promise<UnsignedWithdrawal>;
  /**
   * The fee cap `build` would set for this intent now, without checking that the source can pay
   * it: the gas station sends exactly that (plus its margin) to a token deposit address holding no
   * native coin before sweeping it, and a native sweep leaves it. Optional: a chain without it gets
   * no top-ups.
   */
  quoteFee?(intent: WithdrawalIntent, reader: R): Promise<bigint>;
  /**
   * Native coin the chain makes the source keep after this intent, beyond its fee (an existential
   * deposit a keep-alive transfer leaves, a freeze): a native sweep leaves it on the address and a
   * top-up brings the address up to it plus the fee. Optional: nothing is kept where absent.
   */
  keptOnSource?(intent: WithdrawalIntent, reader: R): Promise<bigint>;

  /**
   * UTXO chains (a sweep rule's consolidation): one transaction spending the coins of every source
   * address that holds at least `threshold` in coins worth their input's fee, to `to` alone (no
   * change: the output is their sum less the fee, exactly), at `feeRate`. Coins beyond the standard
   * weight wait: called again once this one is signed (`context.inFlight`), it takes the next ones.
   * null when no source qualifies. Optional: a chain without it has no consolidation sweeps.
   */
  consolidate?(request: ConsolidationRequest, reader: R, context?: BuildContext): Promise<UnsignedWithdrawal | null>;
  sign(unsigned: UnsignedWithdrawal, secret: WalletSecret, derivationIndexes: number[]): Promise<SignedWithdrawal>;
  /**
   * Throws a BaseError (`unprocessable`) naming the first difference from the prepared withdrawal.
   * `fresh` is the same intent built now (account chains: the next free nonce and current fees).
   */
  checkSigned(prepared: UnsignedWithdrawal, raw: string, fresh?: UnsignedWithdrawal): CheckedSignedWithdrawal;
  broadcast(signed: SignedWithdrawal, reader: R): Promise<void>;
  /**
   * The unsigned replacement of `current` (the latest transaction sent for the withdrawal): the
   * same nonce, fees high enough for the node to replace it; `fee` is the new cap. A cancel's
   * `intent` pays the source itself nothing, so `verify` judges it. Optional: a chain without it
   * cannot speed up or cancel (the API answers 422).
   */
  replace?(current: UnsignedWithdrawal, request: ReplaceRequest, reader: R): Promise<UnsignedWithdrawal>;
  /**
   * `confirmed` only once the mined transaction is compared with `unsigned.intent` (sender, each
   * recipient and exact amount, the asset, the memo). A successful transaction under `txHash` that
   * does not pay the intent is `pending` (with its `blockNumber`), on every chain: never
   * `confirmed` (this withdrawal was not paid) and never `rejected` (`failed_on_chain` releases the
   * reservation, and funds may have moved in a way walletd does not understand). `pending` keeps
   * the funds reserved and the withdrawal `broadcast`, in view, until an operator looks (the
   * conformance kit's "mined but not the intent" asserts exactly `pending`). `failed_on_chain` is
   * for a transaction the chain executed and failed (reverted, `tec…`, `ExtrinsicFailed`).
   */
  verify(unsigned: UnsignedWithdrawal, txHash: string, reader: R, context?: VerifyContext): Promise<WithdrawalVerdict>;
}
