import { type ChainPlugin, DEFAULT_CONFIG, PluginRegistrationError, type PluginRegistry, registerPlugins } from '@walletd/core';

/**
 * Loads the chain plugins the configuration names (`plugins`, the built-in ones by default) by
 * package name, so a chain team ships a plugin without editing the server: the package is
 * installed beside walletd and exports `createPlugin()`. Each failure stops start-up with the
 * package's name; registration then refuses a plugin that does not fit the contract.
 */
export function loadPlugins(names: readonly string[] = DEFAULT_CONFIG.plugins): PluginRegistry {
  return registerPlugins(names.map(loadPlugin));
}

function loadPlugin(name: string): ChainPlugin {
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
    return mod.createPlugin() as ChainPlugin;
  } catch (cause) {
    throw new PluginRegistrationError(`plugin package ${name}: createPlugin() failed: ${(cause as Error).message}`);
  }
}
