export * from './spans';
