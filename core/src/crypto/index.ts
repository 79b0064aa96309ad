export * from './envelope';
export * from './masterKeyFile';
export * from './sealedExport';
export * from './apiKeys';
export * from './hdSecret';
export * from './ed25519';
