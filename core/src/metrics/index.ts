export * from './metrics';
export * from './masterKeyUnwraps';
