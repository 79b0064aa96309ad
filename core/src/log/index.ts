export * from './logger';
export * from './withRole';
export * from './unredacted';
export * from './bufferedDestination';
