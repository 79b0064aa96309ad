// The plugin kit (errors, money, chains, the plugin contract, node transports, key derivation) is
// re-exported so the kernel's users keep one import; plugins import the kit alone.
export * from '@walletd/plugin-kit';
export * from './config';
export * from './log';
export * from './crypto';
export * from './db';
export * from './plugin';
export * from './auth';
export * from './events';
export * from './metrics';
export * from './tracing';
export * from './process';
export * from './policy';
export * from './health';
export * from './withdrawals';
