export * from './registerPlugins';
export * from './declaredChainData';
export * from './chainAssets';
export * from './tokenAccounts';
