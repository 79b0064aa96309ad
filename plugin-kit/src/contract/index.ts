export * from './contract';
export * from './confirmByDepth';
export * from './unreadableSigned';
export * from './keySigner';
