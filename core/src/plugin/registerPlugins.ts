import { BaseError, type ChainDefinition, type ChainTable, chainTableOf } from '@walletd/plugin-kit';
import type { ChainSettings } from '../config';
import { chainDataProblem } from './chainDataProblem';
import {
  CONTRACT_V2_CHANGES,
  CONTRACT_V3_CHANGES,
  type ChainPlugin,
  type ChainReader,
  PLUGIN_API_VERSION,
  readerOptionsFor,
} from '@walletd/plugin-kit';

export class PluginRegistrationError extends BaseError {
  constructor(message: string) {
    super('plugin_invalid', message);
    this.name = 'PluginRegistrationError';
  }
}

export interface PluginRegistry {
  forChain(chain: string): ChainPlugin | undefined;
  all(): ChainPlugin[];
  /** The chains, networks and amount ceilings the registered plugins declare as data (`chainTableOf`). */
  chainTable(): ChainTable;
  /**
   * The process's one reader for a chain/network (created on first use, per node URL and
   * options): readers may hold connections (WebSocket clients), so they are shared, not made per
   * request. Throws if no plugin serves the chain.
   */
  readerFor(settings: ChainSettings): ChainReader;
  /** Closes every reader made so far (shutdown); never rejects. */
  closeReaders(): Promise<void>;
}

/**
 * Checks every plugin on the main thread before anything starts: a plugin built for another
 * contract version, declaring its chains incompletely (`chainDataProblem`), or claiming a chain
 * another plugin serves stops start-up with a message naming it. The chains served are the ones
 * the plugins declare: walletd keeps no list of its own.
 */
export function registerPlugins(plugins: ChainPlugin[]): PluginRegistry {
  const byChain = new Map<string, ChainPlugin>();
  const definitions: ChainDefinition[] = [];
  for (const p of plugins) {
    const name = typeof p?.name === 'string' ? p.name : '(unnamed plugin)';
    // A version-2 plugin differs only by the chain data version 3 requires: checked below, by name.
    if (p?.apiVersion !== PLUGIN_API_VERSION && p?.apiVersion !== 2) {
      const changes =
        p?.apiVersion === 1
          ? `; what changed in version 2: ${CONTRACT_V2_CHANGES.join('; ')}; in version 3: ${CONTRACT_V3_CHANGES.join('; ')} (plugins/README.md)`
          : '';
      throw new PluginRegistrationError(
        `plugin ${name} implements contract version ${String(p?.apiVersion)}; this walletd needs ${PLUGIN_API_VERSION}${changes}`,
      );
    }
    for (const fn of ['validateAddress', 'matchKey', 'formatAddress', 'deriveAddress', 'createReader', 'confirm'] as const) {
      if (typeof p[fn] !== 'function') throw new PluginRegistrationError(`plugin ${name} lacks ${fn}()`);
    }
    if (p.withdrawals !== undefined) {
      for (const verb of ['build', 'sign', 'checkSigned', 'broadcast', 'verify'] as const) {
        if (typeof p.withdrawals[verb] !== 'function') throw new PluginRegistrationError(`plugin ${name} lacks withdrawals.${verb}()`);
      }
    }
    if (typeof p.detectModule !== 'string' || !p.detectModule) throw new PluginRegistrationError(`plugin ${name} names no detectModule`);
    // Workers import it later; a module that does not load must stop start-up here, by name.
    let detect: unknown;
    try {
      detect = (require(p.detectModule) as { detect?: unknown }).detect;
    } catch (cause) {
      throw new PluginRegistrationError(`plugin ${name}: detectModule ${p.detectModule} does not load: ${(cause as Error).message}`);
    }
    if (typeof detect !== 'function')
      throw new PluginRegistrationError(`plugin ${name}: detectModule ${p.detectModule} exports no detect()`);
    for (const c of p.chains ?? []) {
      const problem = chainDataProblem(c);
      if (problem) throw new PluginRegistrationError(`plugin ${name}: ${problem}`);
      if (c.addressing !== 'key-per-address' && c.addressing !== 'account-tag')
        throw new PluginRegistrationError(
          `plugin ${name}: ${c.chain} declares addressing ${String(c.addressing)} (key-per-address or account-tag)`,
        );
      for (const cap of ['memo', 'destinationTag', 'multipleOutputs', 'feePayer'] as const) {
        if (typeof c.capabilities?.[cap] !== 'boolean')
          throw new PluginRegistrationError(`plugin ${name}: ${c.chain} does not declare capabilities.${cap} (true or false)`);
      }
      for (const n of c.networks) {
        if (n.finality !== 'confirmations' && n.finality !== 'finalized')
          throw new PluginRegistrationError(
            `plugin ${name}: ${c.chain}/${n.network} declares finality ${String(n.finality)} (confirmations or finalized)`,
          );
      }
      const other = byChain.get(c.chain);
      if (other) throw new PluginRegistrationError(`chain ${c.chain} is served by both ${other.name} and ${name}`);
      byChain.set(c.chain, p);
      definitions.push(c);
    }
  }
  const table = chainTableOf(definitions);
  const readers = new Map<string, ChainReader>();
  return {
    forChain: (chain) => byChain.get(chain),
    all: () => [...new Set(byChain.values())],
    chainTable: () => table,
    readerFor(settings) {
      const options = readerOptionsFor(settings);
      const key = JSON.stringify([settings.chain, settings.network, options]);
      let reader = readers.get(key);
      if (!reader) {
        const plugin = byChain.get(settings.chain);
        if (!plugin) throw new PluginRegistrationError(`no plugin serves ${settings.chain}`);
        reader = plugin.createReader(settings.chain, settings.network, options);
        readers.set(key, reader);
      }
      return reader;
    },
    async closeReaders() {
      const open = [...readers.values()];
      readers.clear();
      await Promise.all(open.map((r) => r.close?.().catch(() => undefined)));
    },
  };
}
