export * from './registerPlugins';
export * from './chainAssets';
export * from './tokenAccounts';
export * from './configuredNetworks';
