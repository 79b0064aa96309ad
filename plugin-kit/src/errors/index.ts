export * from './BaseError';
export * from './codes';
export * from './invariant';
