import { BaseError, type DerivedAddress, type KeySigner, ed25519Key, publicKeyOf, slip10Ed25519 } from '@walletd/plugin-kit';
import { Address } from '@ton/core';
import type { WalletContractV5R1 } from '@ton/ton';
import { NETWORK_GLOBAL_ID, isTestNetwork } from './networks';
import { tonClient } from './sdk';

/**
 * Address `i` of a wallet: SLIP-10 ed25519 at m/44'/607'/0'/0'/i'/0' (Ledger's TON app path; every
 * level hardened), one wallet v5r1 contract per key. Tonkeeper, MyTonWallet and Ledger Live restore
 * v5r1 wallets of a key; v5r1 is what they create today (gasless jetton sends, extensions), and its
 * address depends on the network (see `NETWORK_GLOBAL_ID`).
 */
export const tonPath = (index: number): string => `m/44'/607'/0'/0'/${index}'/0'`;

export function tonKey(seed: Uint8Array, index: number): { secretKey: Buffer; publicKey: Buffer } {
  if (!Number.isInteger(index) || index < 0 || index >= 0x80000000) throw new BaseError('input_invalid', `invalid address index ${index}`);
  const privateKey = slip10Ed25519(seed, tonPath(index));
  try {
    const publicKey = Buffer.from(publicKeyOf(ed25519Key(privateKey)));
    // tweetnacl's form, as @ton/crypto signs: the 32-byte seed followed by the public key.
    return { secretKey: Buffer.concat([privateKey, publicKey]), publicKey };
  } finally {
    privateKey.fill(0);
  }
}

export function walletOf(network: string, publicKey: Buffer): WalletContractV5R1 {
  const networkGlobalId = NETWORK_GLOBAL_ID[network];
  if (networkGlobalId === undefined) throw new BaseError('validation_failed', `TON network ${network} is not served`);
  return tonClient().WalletContractV5R1.create({ publicKey, walletId: { networkGlobalId } });
}

/** The match form: the raw `0:<64 hex>` (every spelling of one account is one key). */
export const rawKey = (address: Address): string => address.toRawString();

/**
 * Deposit addresses are shown user-friendly and non-bounceable (`UQ…`; `0Q…` on test networks), so a
 * payment to a wallet not deployed yet stays there instead of bouncing back to the sender.
 */
export const displayForm = (network: string, address: Address): string =>
  address.toString({ bounceable: false, urlSafe: true, testOnly: isTestNetwork(network) });

/**
 * Any form of a TON address: raw `0:<hex>`, or user-friendly (bounceable or not, base64 or
 * base64url). A user-friendly form flagged test-only is refused on mainnet; a mainnet-flagged one
 * is taken on test networks (wallets print those there too).
 */
export function parseTonAddress(network: string, input: string): Address | null {
  try {
    if (Address.isRaw(input)) return Address.parseRaw(input);
    if (!Address.isFriendly(input)) return null;
    const parsed = Address.parseFriendly(input);
    if (parsed.isTestOnly && !isTestNetwork(network)) return null;
    return parsed.address;
  } catch {
    return null;
  }
}

export function tonMatchKey(network: string, input: string): string {
  const address = parseTonAddress(network, input);
  if (!address) throw new BaseError('invalid_address', `"${input}" is not a valid TON address for ${network}`);
  return rawKey(address);
}

export function deriveTonAddress(network: string, seed: Uint8Array, index: number): DerivedAddress {
  const { publicKey, secretKey } = tonKey(seed, index);
  secretKey.fill(0);
  const wallet = walletOf(network, publicKey);
  return { address: displayForm(network, wallet.address), matchKey: rawKey(wallet.address), path: tonPath(index) };
}

/**
 * The address of a key held in a token (issue 45 §3): the same wallet v5r1 contract, network id and
 * workchain as a derived address, for the token's 32-byte Ed25519 public key.
 */
export function addressOfTonKey(network: string, signer: KeySigner): { address: string; matchKey: string } {
  if (signer.curve !== 'ed25519') throw new BaseError('internal', 'a TON wallet needs an ed25519 key');
  const wallet = walletOf(network, Buffer.from(signer.publicKey()));
  return { address: displayForm(network, wallet.address), matchKey: rawKey(wallet.address) };
}
