import { u8aConcat, u8aToHex } from '@polkadot/util';
import { onFirstUse } from '@walletd/plugin-kit';
import { utilCrypto } from './sdk';

/** FRAME storage keys (twox128 of pallet and item, blake2_128concat of each map key): stable across runtimes. */
const prefix = (pallet: string, item: string) => u8aConcat(utilCrypto().xxhashAsU8a(pallet, 128), utilCrypto().xxhashAsU8a(item, 128));
const blake2_128Concat = (key: Uint8Array) => u8aConcat(utilCrypto().blake2AsU8a(key, 128), key);

/** A function, not a constant: hashing it at load would load the crypto with the plugin. */
export const systemEventsKey = onFirstUse(() => u8aToHex(prefix('System', 'Events')));

export const systemAccountKey = (accountId: Uint8Array): string =>
  u8aToHex(u8aConcat(prefix('System', 'Account'), blake2_128Concat(accountId)));

function u32le(n: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, n, true);
  return out;
}

/** `Assets.Account(asset_id: u32, who)`. */
export const assetAccountKey = (assetId: number, accountId: Uint8Array): string =>
  u8aToHex(u8aConcat(prefix('Assets', 'Account'), blake2_128Concat(u32le(assetId)), blake2_128Concat(accountId)));

/** `Assets.Asset(asset_id)`: the asset's details (min_balance, status). */
export const assetDetailsKey = (assetId: number): string =>
  u8aToHex(u8aConcat(prefix('Assets', 'Asset'), blake2_128Concat(u32le(assetId))));
