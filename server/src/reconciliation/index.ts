export * from './driftBand';
export * from './reconcileChain';
export * from './reconciliationView';
export * from './chainReconciler';
export * from './checkNow';
export * from './explainDrift';
export * from './recheckDrifts';
