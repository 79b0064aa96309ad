import type { KeySigner } from './keySigner';
import type { Chain, NativeAsset } from '../chains';

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
  /**
   * Test networks carry no real value (the free plan is limited to them). With `native`, the
   * network as data: walletd's chain table is built from the loaded plugins (`chainTableOf`).
   */
  testnet: boolean;
  /** The network's native asset: symbol and decimals of its base unit. */
  native: NativeAsset;
}

/** The largest amount, in base units, one transfer on the chain carries: native asset and tokens. */
export interface AmountCeiling {
  native: bigint;
  token: bigint;
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
  /** The chain's name (`CHAIN_NAME`: lowercase letters, digits, `-`), unique among the loaded plugins. */
  chain: Chain;
  networks: NetworkDefinition[];
  addressing: AddressingMode;
  capabilities: ChainCapabilities;
  /**
   * Checked before any node call: a larger amount is the caller's 400 `invalid_amount` (never a
   * node's refusal, a 502 clients retry). At most 78 digits (the database's numeric(78,0)).
   */
  amountCeiling: AmountCeiling;
  /**
   * What the node may read lower than the ledger explains, taken by the chain itself with no
   * transfer to index (TON storage fees): reconciliation tolerates it. Absent: nothing.
   */
  unrecordedDebit?: { below: bigint; why: string };
  /**
   * The curve a key generated inside a PKCS#11 token (or a KMS) needs to control an address on this
   * chain, when the plugin can sign with such a key (`WalletSecret.signerAt`) and name its address
   * (`ChainPlugin.addressOfKey`). Absent: the chain's keys stay derived from the wallet's secret.
   */
  keyHeldInToken?: 'secp256k1' | 'ed25519';
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
  /**
   * The key of the source address at this index when it is held elsewhere (a PKCS#11 token): it
   * signs there, and a plugin that supports it signs with it instead of deriving from the seed.
   */
  signerAt?(index: number): KeySigner | undefined;
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
