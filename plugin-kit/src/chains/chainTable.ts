import type { AmountCeiling, ChainDefinition } from '../contract/chainDefinition';
import type { NetworkInfo } from './registry';

/** Chains, their networks and amount ceilings as the loaded plugins declare them. */
export interface ChainTable {
  networks: Map<string, NetworkInfo[]>;
  ceilings: Map<string, AmountCeiling>;
}

/**
 * The chain table built from plugins' definitions (issue 31 item 2: the plugins, not core, say
 * which chains exist). A network that does not declare `testnet` and `native`, or a chain without
 * `amountCeiling` (a contract-2 plugin written before they existed), is left out: `registerPlugins`
 * still answers for those from core's own table.
 */
export function chainTableOf(definitions: readonly ChainDefinition[]): ChainTable {
  const table: ChainTable = { networks: new Map(), ceilings: new Map() };
  for (const c of definitions) {
    const declared = c.networks.flatMap((n) =>
      n.testnet !== undefined && n.native ? [{ name: n.network, testnet: n.testnet, native: { ...n.native } }] : [],
    );
    if (declared.length > 0) table.networks.set(c.chain, declared);
    if (c.amountCeiling) table.ceilings.set(c.chain, { ...c.amountCeiling });
  }
  return table;
}
