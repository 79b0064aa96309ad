export * from './testDatabase';
export * from './testApp';
export * from './seed';
export * from './walletdProcess';
export * from './receiver';
export * from './events';
export * from './eventually';
export * from './anvil';
