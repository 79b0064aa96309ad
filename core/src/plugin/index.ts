export * from './contract';
export * from './registerPlugins';
export * from './confirmByDepth';
