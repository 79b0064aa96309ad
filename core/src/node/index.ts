export * from './jsonRpcClient';
export * from './parseLossless';
