export * from './loadConfig';
export * from './types';
export * from './mailSettings';
export { configSchema } from './schema';
