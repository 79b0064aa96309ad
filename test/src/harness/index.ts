export * from './testDatabase';
