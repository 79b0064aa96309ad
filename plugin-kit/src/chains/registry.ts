/**
 * The eleven chains walletd serves, their networks and native assets. Plugins add the
 * chain-specific behaviour; this table is what the API, the plan checks and the asset keys
 * need without loading any plugin.
 */
export const CHAINS = [
  'ethereum',
  'bsc',
  'polygon',
  'arbitrum',
  'bitcoin',
  'dogecoin',
  'xrp',
  'polkadot',
  'tron',
  'solana',
  'ton',
] as const;

/**
 * A chain's name, as the plugin that serves it declares it (lowercase, e.g. `ethereum`): a plain
 * string, since the set of chains is the set the loaded plugins declare, not a list in the kit.
 */
export type Chain = string;

export interface NativeAsset {
  symbol: string;
  decimals: number;
}

export interface NetworkInfo {
  name: string;
  /** Test networks carry no real value; the free plan is limited to them. */
  testnet: boolean;
  native: NativeAsset;
}

const net = (name: string, testnet: boolean, symbol: string, decimals: number): NetworkInfo => ({
  name,
  testnet,
  native: { symbol, decimals },
});

export const NETWORKS: Record<(typeof CHAINS)[number], readonly NetworkInfo[]> = {
  ethereum: [net('mainnet', false, 'ETH', 18), net('sepolia', true, 'ETH', 18), net('devnet', true, 'ETH', 18)],
  bsc: [net('mainnet', false, 'BNB', 18), net('testnet', true, 'tBNB', 18)],
  polygon: [net('mainnet', false, 'POL', 18), net('amoy', true, 'POL', 18)],
  arbitrum: [net('mainnet', false, 'ETH', 18), net('sepolia', true, 'ETH', 18)],
  bitcoin: [net('mainnet', false, 'BTC', 8), net('testnet', true, 'BTC', 8), net('signet', true, 'BTC', 8), net('regtest', true, 'BTC', 8)],
  dogecoin: [net('mainnet', false, 'DOGE', 8), net('testnet', true, 'DOGE', 8), net('regtest', true, 'DOGE', 8)],
  xrp: [net('mainnet', false, 'XRP', 6), net('testnet', true, 'XRP', 6), net('devnet', true, 'XRP', 6), net('localnet', true, 'XRP', 6)],
  polkadot: [net('mainnet', false, 'DOT', 10), net('paseo', true, 'PAS', 10), net('localnet', true, 'ROC', 12)],
  tron: [net('mainnet', false, 'TRX', 6), net('nile', true, 'TRX', 6), net('shasta', true, 'TRX', 6), net('devnet', true, 'TRX', 6)],
  solana: [net('mainnet', false, 'SOL', 9), net('devnet', true, 'SOL', 9), net('testnet', true, 'SOL', 9), net('localnet', true, 'SOL', 9)],
  ton: [net('mainnet', false, 'TON', 9), net('testnet', true, 'TON', 9), net('localnet', true, 'TON', 9)],
};

export const isChain = (value: string): value is (typeof CHAINS)[number] => (CHAINS as readonly string[]).includes(value);

export function networkInfo(chain: string, network: string): NetworkInfo | undefined {
  if (!isChain(chain)) return undefined;
  return NETWORKS[chain].find((n) => n.name === network);
}

export interface AssetRef {
  /** `<chain>:<network>:<asset>`; `<asset>` is the lowercase native symbol or the token contract. */
  key: string;
  symbol: string;
  decimals: number;
  contractAddress: string | null;
}

export const assetKey = (chain: string, network: string, asset: string): string => `${chain}:${network}:${asset}`;

export function nativeAsset(chain: Chain, network: string): AssetRef {
  const info = networkInfo(chain, network);
  if (!info) throw new Error(`unknown network ${chain}/${network}`);
  return {
    key: assetKey(chain, network, info.native.symbol.toLowerCase()),
    symbol: info.native.symbol,
    decimals: info.native.decimals,
    contractAddress: null,
  };
}
