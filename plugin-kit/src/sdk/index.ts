export * from './onFirstUse';
