import type { AssetRef, Chain } from '../chains';
import type { ChainDefinition, DerivedAddress, TokenAccount, WalletSecret } from './chainDefinition';
import type { BlockRef, ConfirmFn, TokenBalanceChange, TokenDefinition } from './detection';
import type { ChainReader, ReaderOptions } from './reader';
import type { KeySigner } from './keySigner';
import type { WithdrawalVerbs } from './withdrawalVerbs';

export * from './chainDefinition';
export * from './detection';
export * from './reader';
export * from './withdrawalVerbs';

/**
 * The chain plugin contract, version 3. The server and the indexer know chains only through it,
 * so a chain team ships a plugin without touching them. Registration (`registerPlugins`) checks
 * `apiVersion` and the chains served on the main thread at start-up.
 *
 * Deposits: `detect` (in worker threads), `confirm`, the read client and key work. Withdrawals:
 * `build`, `sign`, `checkSigned`, `broadcast`, `verify` (see plugins/README.md).
 *
 * What changed from version 1 (registration names it when it refuses a v1 plugin): see
 * `CONTRACT_V2_CHANGES`.
 */
export const PLUGIN_API_VERSION = 3 as const;

/**
 * Version 3 makes the chain data required (issue 31: the chains are the ones the plugins declare).
 * A version-2 plugin that already declares it registers unchanged (that is the whole difference);
 * one that does not is refused with a message naming what to declare.
 */
export const CONTRACT_V3_CHANGES = [
  'each network declares testnet (boolean) and native {symbol, decimals}',
  'each chain declares amountCeiling {native, token} (bigint base units, at most 78 digits)',
  'a chain name is lowercase letters, digits and "-" (CHAIN_NAME); no list of chains exists outside the plugins',
] as const;

/** Told to the author of a plugin built for an older contract. */
export const CONTRACT_V2_CHANGES = [
  "finality is 'confirmations' or 'finalized' (no 'finalized-tag'); a network declares defaultConfirmations and finality, the config may override them",
  'each chain declares addressing (key-per-address | account-tag) and capabilities (memo, destinationTag, multipleOutputs, feePayer)',
  'deriveAddress and withdrawals.sign receive a WalletSecret (seed(), entropy(), mnemonic()) instead of the BIP-39 seed bytes',
  'ChainReader.getBalance returns {total, spendable}; fetchBlock may return null for a height without a block; readers may have close()',
  'withdrawal outputs carry their own memo and destinationTag; UnsignedWithdrawal may carry expiresAt',
  'DetectedTransfer may carry txKey (transfer identity where a hash is not unique)',
] as const;

/** `R` is the plugin's own reader type: its verbs receive what its `createReader` made, no downcasts. */
export interface ChainPlugin<R extends ChainReader = ChainReader> {
  /** 3; a 2 that declares the chain data (`CONTRACT_V3_CHANGES`) is accepted as well. */
  apiVersion: typeof PLUGIN_API_VERSION | 2;
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
  /**
   * Chains that declare `keyHeldInToken`: the address of a key held in a token or a KMS, from its
   * public key (the caller names the path).
   */
  addressOfKey?(chain: Chain, network: string, signer: KeySigner): { address: string; matchKey: string };
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
  /**
   * Chains whose token records can say more arrived than did (a fee-on-transfer token logs the full
   * amount, a rebasing one moves balances without a log): reads each address's balance of each token
   * before and after `block` (by its hash and its parent's, so a reorg at the head never mixes two
   * forks' states) and returns the changes the node's balances do not bear out
   * (`observed` is what the balance moved by). The follower calls it only for blocks whose detect
   * reported `balanceChanges`, and holds those credits pending (reason `balance_mismatch`). A
   * failed read throws, like any node read: the block is retried, never recorded unchecked.
   */
  checkBalances?(
    reader: R,
    block: BlockRef,
    changes: readonly (TokenBalanceChange & { asset: AssetRef })[],
  ): Promise<(TokenBalanceChange & { observed: bigint })[]>;
  confirm: ConfirmFn;
  /** Absent on a deposit-only plugin: the server then refuses withdrawals on its chains (422). */
  withdrawals?: WithdrawalVerbs<R>;
}
