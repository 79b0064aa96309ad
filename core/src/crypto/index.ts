export * from './envelope';
export * from './masterKeyFile';
export * from './sealedExport';
export * from './apiKeys';
