export * from './solanaSvm';
export * from './tonSandbox';
export * from './chopsticks';
export * from './litecoind';
