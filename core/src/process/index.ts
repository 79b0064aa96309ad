export * from './processAlive';
export * from './processIdentity';
export * from './fileLock';
