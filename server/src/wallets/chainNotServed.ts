import { BUILT_IN_PLUGINS, BaseError, type ChainPlugin } from '@walletd/core';

const packageOf = new Map<string, string | null>();

/**
 * The shipped plugin package that serves `chain`. Only asked on the error path (a chain `plugins`
 * narrowed out), so the packages are loaded then, not at start, and each answer is kept.
 */
export function builtInPackageFor(chain: string): string | null {
  let found = packageOf.get(chain);
  if (found !== undefined) return found;
  found = null;
  for (const name of BUILT_IN_PLUGINS) {
    try {
      const plugin = (require(name) as { createPlugin(): ChainPlugin }).createPlugin();
      if (plugin.chains.some((c) => c.chain === chain)) {
        found = name;
        break;
      }
    } catch {
      // Not installed here (or broken): then it cannot be the advice.
    }
  }
  packageOf.set(chain, found);
  return found;
}

/**
 * 422 `chain_not_supported` for a new wallet on a chain no loaded plugin serves: names the chains
 * this walletd serves and, when a shipped package serves the chain, the `plugins` line to add.
 */
export function chainNotSupported(chain: string, served: readonly string[]): BaseError {
  const pkg = builtInPackageFor(chain);
  const advice = pkg ? `; ${chain} is served by ${pkg}: add it to "plugins" in the config (docs/operate/configuration.md)` : '';
  return new BaseError(
    'chain_not_supported',
    `no chain plugin this walletd loads serves "${chain}"; it serves ${served.join(', ') || 'no chain'}${advice}`,
  );
}

/**
 * 422 for a chain no loaded plugin serves: the wallet exists, the build has the plugin, one config
 * line is missing; the message names that line.
 */
export function chainNotServed(chain: string, what: 'addresses' | 'withdrawals'): BaseError {
  const pkg = builtInPackageFor(chain);
  return new BaseError(
    'unprocessable',
    pkg
      ? `${what} on ${chain}: ${chain} is served by ${pkg}, which this walletd does not load: add it to "plugins" in the config (docs/operate/configuration.md)`
      : `${what} on ${chain}: no chain plugin this walletd loads serves ${chain}: add the package that serves it to "plugins" in the config (docs/operate/configuration.md)`,
  );
}
