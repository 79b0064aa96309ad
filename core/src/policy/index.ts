export * from './evaluatePolicies';
