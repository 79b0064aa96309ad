import { type PluginRegistry, registerPlugins } from '@walletd/core';
import { createEvmPlugin } from '@walletd/plugin-evm';
import { createUtxoPlugin } from '@walletd/plugin-utxo';

/** The plugins this build ships; registration refuses a plugin that does not fit the contract. */
export function loadPlugins(): PluginRegistry {
  return registerPlugins([createEvmPlugin(), createUtxoPlugin()]);
}
