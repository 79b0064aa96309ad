export * from './contract';
export * from './registerPlugins';
export * from './confirmByDepth';
export * from './chainAssets';
export * from './tokenAccounts';
export * from './unreadableSigned';
