export * from './loadConfig';
export * from './types';
export { configSchema } from './schema';
