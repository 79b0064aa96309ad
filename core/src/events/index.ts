export * from './types';
export * from './recordEvent';
export * from './recordEvents';
export * from './databaseClock';
