import type { DerivedAddress, WalletSecret } from '@walletd/plugin-kit';
import { addressOfScript } from './addresses';
import { bip32, bitcoin } from './libs';
import { networkOf } from './networks';

/** Receive addresses are branch 0, change branch 1 (BIP-44's internal chain). */
export type Branch = 0 | 1;

/** BIP-84 (native segwit, P2WPKH): `m/84'/<coin>'/0'/<branch>/<index>`, as Electrum-LTC and Ledger restore it. */
export const pathOf = (coinType: number, branch: Branch, index: number): string => `m/84'/${coinType}'/0'/${branch}/${index}`;

/** A BIP-32 key (bip32 over tiny-secp256k1): it signs PSBT inputs itself. */
export type KeyNode = ReturnType<ReturnType<typeof bip32>['fromSeed']>;

/** The key at a branch and index. The seed copy is zeroed here; the key lives inside the library's object. */
export function keyAt(chain: string, network: string, secret: WalletSecret, branch: Branch, index: number): KeyNode {
  const net = networkOf(chain, network);
  const seed = secret.seed();
  try {
    return bip32()
      .fromSeed(seed, net.params)
      .derivePath(pathOf(net.coinType, branch, index));
  } finally {
    seed.fill(0);
  }
}

/** The P2WPKH output script (hex) of a key: the address's match form. */
export const scriptOfKey = (key: KeyNode): string =>
  Buffer.from(bitcoin.payments.p2wpkh({ pubkey: key.publicKey }).output as Uint8Array).toString('hex');

export function deriveAt(chain: string, network: string, secret: WalletSecret, branch: Branch, index: number): DerivedAddress {
  const net = networkOf(chain, network);
  const matchKey = scriptOfKey(keyAt(chain, network, secret, branch, index));
  return {
    address: addressOfScript(chain, network, Buffer.from(matchKey, 'hex')) as string,
    matchKey,
    path: pathOf(net.coinType, branch, index),
  };
}
