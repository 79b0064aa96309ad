import type { AssetRef, Chain } from '../chains';

/**
 * The chain plugin contract, version 1. The server and the indexer know chains only through it,
 * so a chain team ships a plugin without touching them. Registration (`registerPlugins`) checks
 * `apiVersion` and the chains served on the main thread at start-up.
 *
 * Deposits: `detect` (in worker threads), `confirm`, the read client and key work. Withdrawals:
 * `build`, `sign`, `checkSigned`, `broadcast`, `verify` (see plugins/README.md).
 */
export const PLUGIN_API_VERSION = 1 as const;

export type FinalityRule = 'confirmations' | 'finalized-tag';

export interface NetworkDefinition {
  network: string;
  /** EVM chain id, where the chain has one. */
  chainId?: number;
  /** Confirmations after which a deposit is final, unless the operator overrides it. */
  defaultConfirmations: number;
  finality: FinalityRule;
}

export interface ChainDefinition {
  chain: Chain;
  networks: NetworkDefinition[];
}

/** Addresses the company watches, in the plugin's match form (lowercase hex on EVM). */
export interface WatchedAddresses {
  has(matchKey: string): boolean;
  /**
   * For match forms that are lowercase hex (UTXO output scripts): `has(hex(bytes))` without
   * building the string. May say yes for an unwatched key (never no for a watched one); the
   * indexer matches exact keys before recording.
   */
  hasBytes?(bytes: Uint8Array): boolean;
}

/** A token the operator allow-listed: only these contracts are ever credited. */
export interface TokenDefinition extends AssetRef {
  /** The contract in match form. */
  matchKey: string;
}

export interface DetectContext {
  chain: Chain;
  network: string;
  native: AssetRef;
  /** By contract match key. */
  tokens: ReadonlyMap<string, TokenDefinition>;
  watched: WatchedAddresses;
}

export interface BlockRef {
  number: bigint;
  hash: string;
  parentHash: string;
}

/**
 * One incoming transfer to a watched address: compact, amounts in base units. Unique by
 * (chain, network, txHash, eventIndex); `eventIndex` is an ordinal within the transaction that
 * does not change when the transaction is mined again in another block (after a reorg).
 */
export interface DetectedTransfer {
  txHash: string;
  eventIndex: number;
  /** EVM log index in the block, or the vout on UTXO chains. */
  logIndex?: number;
  from?: string;
  /** Display form of the recipient. */
  to: string;
  /** Match form of the recipient (the key of `watched`). */
  toKey: string;
  assetKey: string;
  amount: bigint;
  eventType: string;
  /** Chain-specific fields carried into the event (destinationTag, memo, inputs/outputs). */
  extra?: Record<string, unknown>;
}

export interface DetectResult {
  block: BlockRef;
  transfers: DetectedTransfer[];
}

/** The pure detector a worker thread runs: bytes in, compact transfers out; no I/O, deterministic. */
export type DetectFn = (raw: Uint8Array, ctx: DetectContext) => DetectResult;

/**
 * Chains with a public mempool (bitcoin, dogecoin): the detect module also exports
 * `detectMempool`, run in a worker on the transactions `ChainReader.mempool` fetched.
 */
export type DetectMempoolFn = (raw: Uint8Array, ctx: DetectContext) => DetectedTransfer[];

/** The node's mempool: every transaction id in it, and the raw form of those not yet seen. */
export interface MempoolSnapshot {
  txids: string[];
  /** What `detectMempool` reads; only the transactions not in `seen`. */
  raw: Uint8Array;
}

export interface DerivedAddress {
  /** Display form (EIP-55 checksum on EVM). */
  address: string;
  /** Match form. */
  matchKey: string;
  path: string;
}

/** A detected transfer waiting to be final, as `confirm` sees it. */
export interface PendingTransfer {
  id: number;
  /** null: not in a block (a mempool detection, or detached by a reorg). */
  blockNumber: bigint | null;
}

export interface ConfirmInput {
  pending: PendingTransfer[];
  head: bigint;
  /** The node's finalized height, when the network's finality rule uses it. */
  finalized: bigint | null;
  threshold: number;
  finality: FinalityRule | 'finalized';
}

/** What `confirm` decides for each pending transfer it does not leave pending. */
export interface ConfirmDecision {
  id: number;
  status: 'confirmed' | 'rejected';
  confirmations: number;
  reason?: 'reorg' | 'mempool_dropped';
}

/** Pure: pending transfers and the chain's head/finality in, decisions out. */
export type ConfirmFn = (input: ConfirmInput) => ConfirmDecision[];

/** Node access for one chain/network; the follower calls it on the main thread. */
export interface ChainReader {
  /** Current head height. */
  head(): Promise<bigint>;
  /** The raw block at a height, in the form this plugin's `detect` reads. */
  fetchBlock(height: bigint): Promise<Uint8Array>;
  /** Hash of the block at a height on the node's current chain (reorg ancestor search); null if none. */
  blockHash(height: bigint): Promise<string | null>;
  /** The node's finalized height, on chains that have one (the `finalized` tag on EVM). */
  finalized?(): Promise<bigint | null>;
  /**
   * The network's chain id as a decimal string, on chains that have one (EVM `eth_chainId`). The
   * indexer records it with block 0's hash and stops the chain if the node's changes.
   */
  chainId?(): Promise<string>;
  /** On-chain balance of an address in base units (the API's on-chain check). */
  getBalance(address: string, asset: AssetRef): Promise<bigint>;
  /**
   * Chains with a public mempool: a snapshot, fetching only transactions not in `seen`. Deposits
   * seen there are detected with 0 confirmations; one that leaves the mempool without being mined
   * is rejected with `mempool_dropped`.
   */
  mempool?(seen: ReadonlySet<string>): Promise<MempoolSnapshot>;
}

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
  outputs: { to: string; amount: bigint }[];
  /** Addresses that may fund it, primary first (several on UTXO chains). */
  sources: string[];
  memo?: string;
  destinationTag?: number;
}

export interface UnsignedWithdrawal {
  intent: WithdrawalIntent;
  /** Plugin-specific, JSON-serialisable (e.g. an EVM transaction request, a PSBT). */
  payload: unknown;
  /** The most the transaction can cost in the native asset (the real fee comes from `verify`). */
  fee: bigint;
  sourceAddresses: string[];
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

/** A signed transaction found to pay the intent, with the payload as signed (nonce, fees). */
export interface CheckedSignedWithdrawal {
  signed: SignedWithdrawal;
  payload: unknown;
  fee: bigint;
}

/**
 * `pending`: known to the node, not (yet) paid. `missing`: the node does not know the transaction
 * and it can still land (the service re-sends the same signed bytes). `rejected`: it will never
 * pay (reverted, its nonce or inputs spent by another transaction).
 */
export interface WithdrawalVerdict {
  status: 'pending' | 'missing' | 'confirmed' | 'rejected';
  confirmations: number;
  fee?: bigint;
  /** The block that includes it, when mined (kept so a later disappearance reads as a reorg). */
  blockNumber?: bigint;
  reason?: 'reorg' | 'mempool_dropped' | 'failed_on_chain' | 'expired' | 'provider_error';
}

export interface VerifyContext {
  /** The transaction was seen in a block before: vanishing now means a reorg removed it. */
  seenInBlock: boolean;
}

export interface WithdrawalVerbs {
  build(intent: WithdrawalIntent, reader: ChainReader, context?: BuildContext): Promise<UnsignedWithdrawal>;
  sign(unsigned: UnsignedWithdrawal, seed: Uint8Array, derivationIndexes: number[]): Promise<SignedWithdrawal>;
  /**
   * Throws a BaseError (`unprocessable`) naming the first difference from the prepared withdrawal.
   * `fresh` is the same intent built now (account chains: the next free nonce and current fees).
   */
  checkSigned(prepared: UnsignedWithdrawal, raw: string, fresh?: UnsignedWithdrawal): CheckedSignedWithdrawal;
  broadcast(signed: SignedWithdrawal, reader: ChainReader): Promise<void>;
  verify(unsigned: UnsignedWithdrawal, txHash: string, reader: ChainReader, context?: VerifyContext): Promise<WithdrawalVerdict>;
}

export interface ReaderOptions {
  rpcUrl: string;
  timeoutMs?: number;
}

export interface ChainPlugin {
  apiVersion: typeof PLUGIN_API_VERSION;
  name: string;
  chains: ChainDefinition[];
  /** Absolute path of a module whose `detect` export is this plugin's DetectFn (imported by workers). */
  detectModule: string;
  validateAddress(chain: Chain, network: string, address: string): boolean;
  /** The match form of a valid address; throws InvalidAddress otherwise. */
  matchKey(chain: Chain, network: string, address: string): string;
  /** The display form (EIP-55 on EVM), applied to what matched only, off the hot path. */
  formatAddress(chain: Chain, network: string, address: string): string;
  deriveAddress(chain: Chain, network: string, seed: Uint8Array, index: number): DerivedAddress;
  createReader(chain: Chain, network: string, options: ReaderOptions): ChainReader;
  confirm: ConfirmFn;
  /** Absent on a deposit-only plugin: the server then refuses withdrawals on its chains (422). */
  withdrawals?: WithdrawalVerbs;
}
