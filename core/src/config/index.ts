export * from './loadConfig';
export * from './types';
export * from './defaults';
export * from './mailSettings';
export { configSchema } from './schema';
export * from './masterKeySettings';
export * from './signerSettings';
