export * from './contract';
export * from './registerPlugins';
