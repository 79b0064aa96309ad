export * from './metrics';
export * from './masterKeyUnwraps';
export * from './nodeCalls';
