export * from './logger';
export * from './withRole';
