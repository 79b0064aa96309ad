export * from './Amount';
