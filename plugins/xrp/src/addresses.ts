import { HDKey } from '@scure/bip32';
import { BaseError, type DerivedAddress } from '@walletd/plugin-kit';
import { canonicalCurrency } from './currency';
import { isTestNetwork } from './networks';
import { xrpl } from './sdk';

/** A destination: the classic account and, when one was given, the destination tag. */
export interface XrpDestination {
  account: string;
  tag?: number;
}

const TAG = /^(0|[1-9]\d{0,9})$/;

/**
 * Accepts what people paste: a classic address (`r…`), the service's own deposit form `r…:tag`, and
 * an X-address (account and tag in one string; its test flag must match the network: a testnet
 * X-address on mainnet is refused). Returns null when it is none of these.
 */
export function parseXrpDestination(network: string, input: string): XrpDestination | null {
  const colon = input.indexOf(':');
  if (colon >= 0) {
    const account = input.slice(0, colon);
    const tagText = input.slice(colon + 1);
    if (!xrpl().isValidClassicAddress(account) || !TAG.test(tagText)) return null;
    const tag = Number(tagText);
    return tag <= 0xffffffff ? { account, tag } : null;
  }
  if (xrpl().isValidClassicAddress(input)) return { account: input };
  if (xrpl().isValidXAddress(input)) {
    const { classicAddress, tag, test } = xrpl().xAddressToClassicAddress(input);
    if (test !== isTestNetwork(network)) return null;
    return tag === false ? { account: classicAddress } : { account: classicAddress, tag };
  }
  return null;
}

/** Classic addresses have one spelling per account (base58, case matters): the match form is the classic address, `:tag` appended for a tagged deposit address. */
export const destinationKey = (d: XrpDestination): string => (d.tag === undefined ? d.account : `${d.account}:${d.tag}`);

/**
 * An allow-listed issued currency is named `<currency>.<issuer>` in the config (`USD.rvYAf…`,
 * `RLUSD.rMxCK…` or the 40-hex code); its match form is the currency as rippled prints it (3
 * letters, or 40 hex digits) and the issuer.
 */
export function issuedCurrencyKey(contract: string): string | null {
  const dot = contract.lastIndexOf('.');
  if (dot <= 0) return null;
  const currency = canonicalCurrency(contract.slice(0, dot));
  const issuer = contract.slice(dot + 1);
  if (currency === null || !xrpl().isValidClassicAddress(issuer)) return null;
  return `${currency}.${issuer}`;
}

export function xrpMatchKey(network: string, address: string): string {
  const destination = parseXrpDestination(network, address);
  if (destination) return destinationKey(destination);
  const token = issuedCurrencyKey(address);
  if (token) return token;
  throw new BaseError('invalid_address', `"${address}" is not a valid XRP Ledger address for ${network}`);
}

/** BIP-44 coin 144, the path Xumm/Xaman, Ledger and `Wallet.fromMnemonic` use by default. */
export const xrpPath = (index: number): string => `m/44'/144'/0'/0/${index}`;

/** The secp256k1 key of an account (xrpl's Wallet form: public key hex, private key `00` + hex). */
export function deriveXrpKey(seed: Uint8Array, index: number): { publicKey: string; privateKey: string } {
  const node = HDKey.fromMasterSeed(seed).derive(xrpPath(index));
  if (!node.privateKey || !node.publicKey) throw new BaseError('internal', 'key derivation failed');
  const key = {
    publicKey: Buffer.from(node.publicKey).toString('hex').toUpperCase(),
    privateKey: `00${Buffer.from(node.privateKey).toString('hex').toUpperCase()}`,
  };
  node.wipePrivateData();
  return key;
}

/** The wallet's account (index 0): the service derives it once, when the wallet is created. */
export function deriveXrpAccount(seed: Uint8Array, index: number): DerivedAddress {
  const { publicKey } = deriveXrpKey(seed, index);
  const address = xrpl().deriveAddress(publicKey);
  return { address, matchKey: address, path: xrpPath(index) };
}
