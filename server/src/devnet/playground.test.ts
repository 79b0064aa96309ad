import { join } from 'node:path';
import { ConfigError, loadConfig } from '@walletd/core';
import { loadPlugins } from '../platform/plugins';
import { checkPlaygroundPlugins, knownPlaygroundChains } from './playground';

// The names come from @walletd/devchains' modules, not from the config's schema: the schema takes
// any name, the service refuses one no module has before anything starts.
const config = (devnets: string) => loadConfig({ env: { WALLETD_DEVNETS: devnets, WALLETD_DATA_DIR: join(__dirname, 'no-data-dir') } });

describe('the playground’s local chains from the devchains modules', () => {
  it('refuses a devnet.chains name no local chain has, naming those this build runs', () => {
    const c = config('evm,tron');
    expect(() => checkPlaygroundPlugins(c, loadPlugins())).toThrow(ConfigError);
    expect(() => checkPlaygroundPlugins(c, loadPlugins())).toThrow(
      'devnet.chains: tron has no local engine in this build (offered: evm, solana, ton, polkadot, bitcoin, dogecoin)',
    );
  });

  it('refuses a local chain whose plugin is not loaded, naming the plugin', () => {
    expect(() => checkPlaygroundPlugins(config('dogecoin'), loadPlugins(['@walletd/plugin-evm']))).toThrow(
      'devnet.chains has dogecoin, but no loaded plugin serves it: add "@walletd/plugin-utxo" to plugins',
    );
  });

  it('knows no running local chain when none has written its description', () => {
    expect(knownPlaygroundChains(config('evm,solana'))).toEqual([]);
  });
});
