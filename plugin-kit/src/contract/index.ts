export * from './contract';
export * from './configuredNetwork';
export * from './confirmByDepth';
export * from './unreadableSigned';
export * from './keySigner';
