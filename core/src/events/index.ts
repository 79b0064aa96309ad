export * from './types';
export * from './recordEvent';
