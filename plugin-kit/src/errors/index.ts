export * from './BaseError';
export * from './codes';
