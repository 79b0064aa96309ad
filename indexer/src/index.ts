export * from './sharedAddressSet';
export * from './detectPool';
export type { DetectTask } from './detectWorker';
