export * from './solanaSvm';
export * from './tonSandbox';
export * from './chopsticks';
export * from './litecoind';
export * from './localChain';
export * from './localSolana';
export * from './localTon';
export * from './localPolkadot';
