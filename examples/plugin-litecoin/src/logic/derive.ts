import type { DerivedAddress, WalletSecret } from '@walletd/plugin-kit';
import { encodeSegwitV0 } from '../encoding/bech32';
import { scriptOfProgram } from '../encoding/address';
import { hash160 } from '../encoding/hash';
import { derivePrivateKey, publicKeyOf } from '../encoding/secp256k1';
import { networkOf } from '../networks';

/** Receive addresses are branch 0, change branch 1 (BIP-44's internal chain). */
export type Branch = 0 | 1;

/** BIP-84 (native segwit, P2WPKH): `m/84'/<coin>'/0'/<branch>/<index>`, as Electrum-LTC and Ledger restore it. */
export const pathOf = (coinType: number, branch: Branch, index: number): string => `m/84'/${coinType}'/0'/${branch}/${index}`;

/** The private key at a branch and index; the caller zeroes it after use. */
export function privateKeyAt(chain: string, network: string, secret: WalletSecret, branch: Branch, index: number): Buffer {
  const seed = secret.seed();
  try {
    return derivePrivateKey(seed, pathOf(networkOf(chain, network).coinType, branch, index));
  } finally {
    seed.fill(0);
  }
}

export function deriveAt(chain: string, network: string, secret: WalletSecret, branch: Branch, index: number): DerivedAddress {
  const net = networkOf(chain, network);
  const key = privateKeyAt(chain, network, secret, branch, index);
  try {
    const program = hash160(publicKeyOf(key));
    return {
      address: encodeSegwitV0(net.hrp, program),
      matchKey: scriptOfProgram(program).toString('hex'),
      path: pathOf(net.coinType, branch, index),
    };
  } finally {
    key.fill(0);
  }
}
