export * from './Amount';
export * from './amountCeiling';
