export interface ChainKey {
  chain: string;
  network: string;
}

/**
 * How far the follower has gone: `height` is the last height it dealt with (a block recorded, or a
 * height without a block stepped over); `hash` the last recorded block's at or below it.
 */
export interface Cursor {
  height: bigint;
  hash: string | null;
}

/**
 * A company address as the store matches transfers to it. Through a token account: its owner's id
 * and address, and `only_asset` the one asset it may be credited in.
 */
export type AddressRow = {
  id: number;
  match_key: string;
  address: string;
  wallet_id: number;
  company_id: number;
  only_asset: string | null;
};
