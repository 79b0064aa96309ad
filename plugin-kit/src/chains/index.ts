export * from './registry';
export * from './chainTable';
