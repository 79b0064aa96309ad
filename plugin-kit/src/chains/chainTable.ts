import type { AmountCeiling, ChainDefinition } from '../contract/chainDefinition';
import { BaseError } from '../errors/BaseError';
import { type AssetRef, type NetworkInfo, assetKey } from './registry';

/**
 * The chains, their networks and amount ceilings, as the loaded plugins declare them (issue 31
 * item 2: the plugins, not core, say which chains exist). Every runtime reader of "which chains,
 * which networks, which native asset, how large an amount" asks this table, built once at start-up
 * from the registered plugins (`registry.chainTable()`).
 */
export interface ChainTable {
  networks: ReadonlyMap<string, readonly NetworkInfo[]>;
  ceilings: ReadonlyMap<string, AmountCeiling>;
  /** The chains served, in registration order. */
  chains(): string[];
  network(chain: string, network: string): NetworkInfo | undefined;
  /** The native asset of a served network; 422 for one no loaded plugin serves (a wallet kept from another build). */
  nativeAsset(chain: string, network: string): AssetRef;
  /** The largest amount one transfer carries (native asset or token); undefined for a chain not served. */
  ceiling(chain: string, native: boolean): bigint | undefined;
}

/** Builds the table from plugins' definitions (`registerPlugins` has checked each is complete). */
export function chainTableOf(definitions: readonly ChainDefinition[]): ChainTable {
  const networks = new Map<string, NetworkInfo[]>();
  const ceilings = new Map<string, AmountCeiling>();
  for (const c of definitions) {
    networks.set(
      c.chain,
      c.networks.map((n) => ({ name: n.network, testnet: n.testnet, native: { ...n.native } })),
    );
    ceilings.set(c.chain, { ...c.amountCeiling });
  }
  const network = (chain: string, name: string) => networks.get(chain)?.find((n) => n.name === name);
  return {
    networks,
    ceilings,
    chains: () => [...networks.keys()],
    network,
    nativeAsset(chain, name) {
      const info = network(chain, name);
      if (!info) throw new BaseError('unprocessable', `no loaded plugin serves ${chain}/${name}`);
      return {
        key: assetKey(chain, name, info.native.symbol.toLowerCase()),
        symbol: info.native.symbol,
        decimals: info.native.decimals,
        contractAddress: null,
      };
    },
    ceiling(chain, native) {
      const c = ceilings.get(chain);
      return c === undefined ? undefined : native ? c.native : c.token;
    },
  };
}
