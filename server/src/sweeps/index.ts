export * from './runSweeps';
export * from './sweepRule';
export * from './sweepRules';
export * from './sweepSource';
export * from './consolidationRun';
