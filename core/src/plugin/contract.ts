import type { AssetRef, Chain } from '../chains';

/**
 * The chain plugin contract, version 2. The server and the indexer know chains only through it,
 * so a chain team ships a plugin without touching them. Registration (`registerPlugins`) checks
 * `apiVersion` and the chains served on the main thread at start-up.
 *
 * Deposits: `detect` (in worker threads), `confirm`, the read client and key work. Withdrawals:
 * `build`, `sign`, `checkSigned`, `broadcast`, `verify` (see plugins/README.md).
 *
 * What changed from version 1 (registration names it when it refuses a v1 plugin): see
 * `CONTRACT_V2_CHANGES`.
 */
export const PLUGIN_API_VERSION = 2 as const;

/** Told to the author of a plugin built for an older contract. */
export const CONTRACT_V2_CHANGES = [
  "finality is 'confirmations' or 'finalized' (no 'finalized-tag'); a network declares defaultConfirmations and finality, the config may override them",
  'each chain declares addressing (key-per-address | account-tag) and capabilities (memo, destinationTag, multipleOutputs, feePayer)',
  'deriveAddress and withdrawals.sign receive a WalletSecret (seed(), entropy(), mnemonic()) instead of the BIP-39 seed bytes',
  'ChainReader.getBalance returns {total, spendable}; fetchBlock may return null for a height without a block; readers may have close()',
  'withdrawal outputs carry their own memo and destinationTag; UnsignedWithdrawal may carry expiresAt',
  'DetectedTransfer may carry txKey (transfer identity where a hash is not unique)',
] as const;

/**
 * How a deposit is known final. `confirmations`: the block is `threshold` deep. `finalized`: the
 * node's finalized (EVM `finalized` tag, GRANDPA, Solana `finalized` commitment, Tron solidified,
 * XRP validated) height has reached it.
 */
export type Finality = 'confirmations' | 'finalized';

export interface NetworkDefinition {
  network: string;
  /** EVM chain id, where the chain has one. */
  chainId?: number;
  /** Confirmations after which a deposit is final under `confirmations`, unless the operator overrides it. */
  defaultConfirmations: number;
  /** The network's default rule; `chains[].finality` in the config overrides it. */
  finality: Finality;
}

/**
 * `key-per-address`: every deposit address is its own key (EVM, UTXO, Solana, Tron, Polkadot, TON).
 * `account-tag`: one account per wallet, deposit addresses are the account plus a tag the service
 * allocates (XRP destination tags); the untagged account is watched too.
 */
export type AddressingMode = 'key-per-address' | 'account-tag';

/** What a chain's transactions can carry; the API refuses (400) what a chain cannot, never drops it. */
export interface ChainCapabilities {
  memo: boolean;
  destinationTag: boolean;
  /** Several recipients in one transaction (UTXO). */
  multipleOutputs: boolean;
  /** A fee paid by another account than the sender (Solana fee payer). */
  feePayer: boolean;
}

export interface ChainDefinition {
  chain: Chain;
  networks: NetworkDefinition[];
  addressing: AddressingMode;
  capabilities: ChainCapabilities;
}

/**
 * The wallet's secret as a plugin may need it: the BIP-39 seed (BIP-32 secp256k1, SLIP-10
 * ed25519), the entropy (Polkadot's sr25519 mini-secret) or the phrase itself. Each call returns a
 * fresh copy the plugin may zero; the service zeroes its own after the call.
 */
export interface WalletSecret {
  seed(): Uint8Array;
  entropy(): Uint8Array;
  mnemonic(): string;
}

/** Addresses the company watches, in the plugin's match form (lowercase hex on EVM). */
export interface WatchedAddresses {
  has(matchKey: string): boolean;
  /**
   * For match forms that are lowercase hex (UTXO output scripts): `has(hex(bytes[start..end)))`
   * without building the string or a view (`start`/`end` default to the whole array). May say
   * yes for an unwatched key (never no for a watched one); the indexer matches exact keys before
   * recording.
   */
  hasBytes?(bytes: Uint8Array, start?: number, end?: number): boolean;
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
  /**
   * The transfer's transaction identity where a hash is not unique on the chain (Polkadot:
   * `<block number>-<extrinsic hash>`); unique by (chain, network, txKey ?? txHash, eventIndex). It
   * must determine what the transfer is: the store re-attaches a row seen again under its identity;
   * seen again with other content (amount, asset, recipient: the same signature executed on another
   * fork) it retracts the stored one (`deposit.rejected` `reorg`) and announces the new content, so
   * a key another fork can give to another transfer (a position in a block) only churns events.
   */
  txKey?: string;
  eventIndex: number;
  /** EVM log index in the block, or the vout on UTXO chains. */
  logIndex?: number;
  from?: string;
  /**
   * Match form of the sender, on account chains (the form `toKey` has). A transfer whose sender is
   * an address of the recipient's own wallet is an internal movement: the store never records or
   * announces it as a deposit, whatever transaction carries it.
   */
  fromKey?: string;
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

/**
 * Account-tag chains (XRP): deposit address `tag` of a wallet's account. The service allocates the
 * tag (a random uint32, unique per account) and stores this form; the detector reports a payment
 * with a watched tag under `matchKey` and one with no tag or an unknown tag under the account's
 * own key (it is recorded, attributed to the account, never lost), carrying the tag as sent in
 * `extra.destinationTag`.
 */
export function taggedAddress(account: { address: string; matchKey: string }, tag: number): { address: string; matchKey: string } {
  return { address: `${account.address}:${tag}`, matchKey: `${account.matchKey}:${tag}` };
}

/**
 * The forms a spending policy's destination list may name a payment's destination by.
 * Key-per-address: its match key. Account-tag: the account alone and, when the payment carries a
 * tag (in the address, an X-address, or as `destinationTag`), the tagged form first: a list entry
 * naming the account covers every tag of it (a tag routes money inside the account holder, it does
 * not change who is paid), one naming `account:tag` only that tag.
 */
export function destinationForms(addressing: AddressingMode, matchKey: string, destinationTag?: number): string[] {
  if (addressing !== 'account-tag') return [matchKey];
  const colon = matchKey.lastIndexOf(':');
  const account = colon < 0 ? matchKey : matchKey.slice(0, colon);
  const tag = colon < 0 ? destinationTag : matchKey.slice(colon + 1);
  return tag === undefined ? [account] : [`${account}:${tag}`, account];
}

/**
 * A token account a deposit address owns for one asset (Solana associated token account per mint,
 * TON jetton wallet per master). The service watches `matchKey` and credits a transfer reported
 * there (`toKey` = this key) to the owner, and only when its asset is `assetKey`.
 */
export interface TokenAccount {
  assetKey: string;
  address: string;
  matchKey: string;
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
  finality: Finality;
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

/** What an address holds: `spendable` leaves the chain's minimum (XRP reserve, Polkadot existential deposit, Solana rent) in place. */
export interface Balance {
  total: bigint;
  spendable: bigint;
}

/**
 * Node access for one chain/network, created once per process per chain/network (the service
 * caches it) and closed at shutdown; the follower calls it on the main thread.
 */
export interface ChainReader {
  /** Current head height. */
  head(): Promise<bigint>;
  /**
   * The raw block at a height, in the form this plugin's `detect` reads; null when the height has
   * no block (a Solana skipped slot): the follower steps over it and checks the next block's
   * parent against the last recorded one.
   */
  fetchBlock(height: bigint): Promise<Uint8Array | null>;
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
  getBalance(address: string, asset: AssetRef): Promise<Balance>;
  /**
   * Chains with a public mempool: a snapshot, fetching only transactions not in `seen`. Deposits
   * seen there are detected with 0 confirmations; one that leaves the mempool without being mined
   * is rejected with `mempool_dropped`.
   */
  mempool?(seen: ReadonlySet<string>): Promise<MempoolSnapshot>;
  /** Releases connections (WebSocket clients); called once at shutdown. */
  close?(): Promise<void>;
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

/** A signed transaction found to pay the intent, with the payload as signed (nonce, fees). */
export interface CheckedSignedWithdrawal {
  signed: SignedWithdrawal;
  payload: unknown;
  fee: bigint;
  /** The signed transaction's own validity limit, where the chain has one. */
  expiresAt?: WithdrawalExpiry;
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
  sign(unsigned: UnsignedWithdrawal, secret: WalletSecret, derivationIndexes: number[]): Promise<SignedWithdrawal>;
  /**
   * Throws a BaseError (`unprocessable`) naming the first difference from the prepared withdrawal.
   * `fresh` is the same intent built now (account chains: the next free nonce and current fees).
   */
  checkSigned(prepared: UnsignedWithdrawal, raw: string, fresh?: UnsignedWithdrawal): CheckedSignedWithdrawal;
  broadcast(signed: SignedWithdrawal, reader: R): Promise<void>;
  verify(unsigned: UnsignedWithdrawal, txHash: string, reader: R, context?: VerifyContext): Promise<WithdrawalVerdict>;
}

export interface ReaderOptions {
  rpcUrl: string;
  /** Deadline of one node call. */
  timeoutMs?: number;
  /** Further attempts of an idempotent read after a transport failure; never of a broadcast. */
  retries?: number;
  /** The most bytes one node answer may have (`chains[].maxResponseBytes`; core's default 64 MiB). */
  maxResponseBytes?: number;
  /** Who the node serves ("ethereum/mainnet"), for the reader's messages; never the URL. */
  name?: string;
}

/** The reader options a configured chain asks for. */
export function readerOptionsFor(settings: {
  chain?: string;
  network?: string;
  rpcUrl: string;
  rpcTimeoutMs?: number;
  rpcRetries?: number;
  maxResponseBytes?: number;
}): ReaderOptions {
  return {
    rpcUrl: settings.rpcUrl,
    ...(settings.rpcTimeoutMs !== undefined ? { timeoutMs: settings.rpcTimeoutMs } : {}),
    ...(settings.rpcRetries !== undefined ? { retries: settings.rpcRetries } : {}),
    ...(settings.maxResponseBytes !== undefined ? { maxResponseBytes: settings.maxResponseBytes } : {}),
    ...(settings.chain !== undefined && settings.network !== undefined ? { name: `${settings.chain}/${settings.network}` } : {}),
  };
}

/** `R` is the plugin's own reader type: its verbs receive what its `createReader` made, no downcasts. */
export interface ChainPlugin<R extends ChainReader = ChainReader> {
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
  /**
   * Key-per-address: deposit address `index`. Account-tag: the wallet's account (index 0; the
   * service derives it once, when the wallet is created, and allocates tags without the secret).
   * Documents its path in `path`.
   */
  deriveAddress(chain: Chain, network: string, secret: WalletSecret, index: number): DerivedAddress;
  /**
   * Chains with change outputs (UTXO): the internal change branch (BIP-44/84 `…/1/index`). Never
   * handed out as a deposit address. `withdrawals.sign` receives each source's index within its own
   * branch and uses the key that controls the address.
   */
  deriveChangeAddress?(chain: Chain, network: string, secret: WalletSecret, index: number): DerivedAddress;
  /**
   * Chains where tokens arrive at accounts of their own: the token accounts `owner` has for the
   * allow-listed `tokens` (computed, or asked of the node through `reader`: TON's jetton master
   * names the jetton wallet). Called when a deposit address is generated and, for tokens
   * allow-listed later, when the indexer starts; never with the wallet secret.
   */
  tokenAccounts?(
    chain: Chain,
    network: string,
    owner: DerivedAddress,
    tokens: readonly TokenDefinition[],
    reader: R,
  ): Promise<TokenAccount[]>;
  createReader(chain: Chain, network: string, options: ReaderOptions): R;
  confirm: ConfirmFn;
  /** Absent on a deposit-only plugin: the server then refuses withdrawals on its chains (422). */
  withdrawals?: WithdrawalVerbs<R>;
}
