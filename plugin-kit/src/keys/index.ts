export * from './hdSecret';
export * from './ed25519';
