export * from './app';
export * from './context';
export * from './services/apiKeys';
export * from './services/companies';
export * from './services/wallets';
export * from './services/bootstrap';
export * from './runtime';
