import { InvariantError, BaseError, type DerivedAddress } from '@walletd/plugin-kit';
import { bip32, bitcoin, ecc } from './libs';
import { type UtxoNetwork, utxoNetwork } from './networks';
import { segwitAddress } from './segwitAddress';
import { witnessScript } from './witnessScript';

const { address, payments } = bitcoin;
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/**
 * The match form of a UTXO address is its output script in hex: what a block carries, the same
 * for every encoding of one destination (legacy base58, bech32), so the detector never encodes
 * addresses on the hot path.
 */
export function scriptOf(net: UtxoNetwork, text: string): Uint8Array {
  const witness = witnessScript(net, text);
  if (witness) return witness;
  try {
    return address.toOutputScript(text, net.params);
  } catch {
    throw new BaseError('invalid_address', `"${text}" is not a valid ${net.chain} ${net.network} address`);
  }
}

/** An address, or a match key (the script hex of a standard output): the contract takes both forms. */
function scriptOfAny(net: UtxoNetwork, text: string): Uint8Array {
  if (/^([0-9a-f]{2})+$/.test(text)) {
    const shown = addressOfScript(net, Buffer.from(text, 'hex'));
    // Through the address again: a script no address of this chain may pay (witness v2) is refused.
    if (shown !== null) return scriptOf(net, shown);
  }
  return scriptOf(net, text);
}

export const utxoMatchKey = (chain: string, network: string, text: string): string => hex(scriptOfAny(utxoNetwork(chain, network), text));

export function validateUtxoAddress(chain: string, network: string, text: string): boolean {
  try {
    scriptOf(utxoNetwork(chain, network), text);
    return true;
  } catch {
    return false;
  }
}

/** The canonical display form (bech32 lower case; base58 as is). */
export function formatUtxoAddress(chain: string, network: string, text: string): string {
  const net = utxoNetwork(chain, network);
  // Not bitcoinjs' fromOutputScript: it needs a process-wide ECC library for taproot (500 without one).
  const shown = addressOfScript(net, scriptOfAny(net, text));
  if (shown === null) throw new BaseError('invalid_address', `"${text}" is not a valid ${chain} ${network} address`);
  return shown;
}

/**
 * The display form of an output script, or null for scripts that are not an address (OP_RETURN,
 * bare multisig). The standard templates are encoded directly: bitcoinjs-lib's generic
 * `fromOutputScript` tries each payment type in turn and throws on every miss, which measured as
 * most of the detector's time on blocks with many matches (`npm run bench -- utxo`).
 */
export function addressOfScript(net: UtxoNetwork, script: Uint8Array): string | null {
  const n = script.length;
  const s = script;
  const { params } = net;
  if (n === 22 && s[0] === 0x00 && s[1] === 0x14) return segwitAddress(params.bech32, 0, s, 2, 22);
  if (n === 34 && s[0] === 0x00 && s[1] === 0x20) return segwitAddress(params.bech32, 0, s, 2, 34);
  if (n === 34 && s[0] === 0x51 && s[1] === 0x20) return segwitAddress(params.bech32, 1, s, 2, 34);
  if (n === 25 && s[0] === 0x76 && s[1] === 0xa9 && s[2] === 0x14 && s[23] === 0x88 && s[24] === 0xac)
    return address.toBase58Check(s.subarray(3, 23), params.pubKeyHash);
  if (n === 23 && s[0] === 0xa9 && s[1] === 0x14 && s[22] === 0x87) return address.toBase58Check(s.subarray(2, 22), params.scriptHash);
  try {
    return address.fromOutputScript(script, net.params);
  } catch {
    return null;
  }
}

/** m/84'/coin'/0'/0/i → P2WPKH (bitcoin), m/44'/coin'/0'/0/i → P2PKH (dogecoin). */
/** The output script a key pays to on this network: P2WPKH on BIP-84 networks, P2PKH on BIP-44 ones. */
export function keyScript(net: UtxoNetwork, publicKey: Uint8Array): Uint8Array {
  const pubkey = Buffer.from(publicKey);
  const pay = net.purpose === 84 ? payments.p2wpkh({ pubkey, network: net.params }) : payments.p2pkh({ pubkey, network: net.params });
  if (!pay.output) throw new InvariantError('no output script for the key');
  return pay.output;
}

/** `branch` 0 receives deposits, 1 is the internal change branch (BIP-44/84). */
export function deriveUtxoAddress(chain: string, network: string, seed: Uint8Array, index: number, branch: 0 | 1 = 0): DerivedAddress {
  const net = utxoNetwork(chain, network);
  const path = `m/${net.purpose}'/${net.coinType}'/0'/${branch}/${index}`;
  const node = bip32.fromSeed(seed, net.params).derivePath(path);
  const output = keyScript(net, node.publicKey);
  const address = addressOfScript(net, output);
  if (!address) throw new InvariantError('address derivation produced no address');
  return { address, matchKey: hex(output), path };
}

/** The compressed form (33 bytes) of a secp256k1 public key: what a P2WPKH / P2PKH script commits to. */
export function compressedKey(publicKey: Uint8Array): Uint8Array {
  if (publicKey.length === 33) return publicKey;
  const compressed = ecc.pointCompress(publicKey, true);
  if (!compressed) throw new BaseError('internal', 'not a secp256k1 public key');
  return compressed;
}

/**
 * The address a secp256k1 public key held outside walletd (a PKCS#11 token, a KMS) controls: its
 * compressed key's P2WPKH on bitcoin, P2PKH on dogecoin, as a derived key's (issue 45 §3).
 */
export function addressOfPublicKey(chain: string, network: string, publicKey: Uint8Array): { address: string; matchKey: string } {
  const net = utxoNetwork(chain, network);
  const output = keyScript(net, compressedKey(publicKey));
  const address = addressOfScript(net, output);
  if (!address) throw new InvariantError('no address for the key');
  return { address, matchKey: hex(output) };
}
