export * from './processAlive';
