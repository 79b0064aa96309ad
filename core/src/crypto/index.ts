export * from './envelope';
export * from './masterKeyFile';
export * from './sealedExport';
export * from './apiKeys';
export * from './pkcs11KeyBackend';
export * from './pkcs11InitKey';
export * from './openMasterKey';
export * from './pkcs11Signer';
