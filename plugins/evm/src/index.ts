export * from './createEvmPlugin';
export * from './addresses';
export * from './networks';
export { TRANSFER_TOPIC, detect } from './detectTransfers';
export { createEvmReader } from './evmReader';
export * from './withdrawals';
