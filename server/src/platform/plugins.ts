import {
  BaseError,
  type ChainPlugin,
  type ChainSettings,
  type ConfiguredNetwork,
  DEFAULT_CONFIG,
  PluginRegistrationError,
  type PluginRegistry,
  configuredNetworksOf,
  registerPlugins,
} from '@walletd/core';

/**
 * Loads the chain plugins the configuration names (`plugins`, the built-in ones by default) by
 * package name, so a chain team ships a plugin without editing the server: the package is
 * installed beside walletd and exports `createPlugin()`. Each failure stops start-up with the
 * package's name; registration then refuses a plugin that does not fit the contract.
 */
export function loadPlugins(names: readonly string[] = DEFAULT_CONFIG.plugins, chains: readonly ChainSettings[] = []): PluginRegistry {
  const configured = configuredNetworksOf(chains);
  if (configured.length === 0) return registerPlugins(names.map((n) => loadPlugin(n)));
  // A declared network may not take a shipped chain's name, whichever plugin ships it.
  const shipped = new Set(names.flatMap((n) => loadPlugin(n).chains.map((c) => c.chain)));
  for (const c of configured) {
    if (shipped.has(c.chain))
      throw new BaseError(
        'config_invalid',
        `chains[]: "${c.chain}" is a built-in chain; a network declared with family "${c.family}" needs a name of its own (e.g. "base")`,
      );
  }
  return registerPlugins(names.map((n) => loadPlugin(n, configured)));
}

function loadPlugin(name: string, configuredNetworks?: readonly ConfiguredNetwork[]): ChainPlugin {
  let mod: { createPlugin?: unknown };
  try {
    mod = require(name) as { createPlugin?: unknown };
  } catch (cause) {
    const notFound = (cause as { code?: string }).code === 'MODULE_NOT_FOUND' && (cause as Error).message.includes(`'${name}'`);
    throw new PluginRegistrationError(
      notFound
        ? `plugin package ${name} is not installed (npm install ${name} beside walletd, or remove it from plugins in the config)`
        : `plugin package ${name} does not load: ${(cause as Error).message.split('\n')[0]}`,
    );
  }
  if (typeof mod.createPlugin !== 'function')
    throw new PluginRegistrationError(`plugin package ${name} exports no createPlugin() function; is it a walletd chain plugin?`);
  try {
    return (configuredNetworks ? mod.createPlugin({ configuredNetworks }) : mod.createPlugin()) as ChainPlugin;
  } catch (cause) {
    throw new PluginRegistrationError(`plugin package ${name}: createPlugin() failed: ${(cause as Error).message}`);
  }
}
