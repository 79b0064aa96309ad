export * from './driftBand';
export * from './reconcileChain';
export * from './reconciliationView';
