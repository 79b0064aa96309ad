export * from './sharedAddressSet';
export * from './detectPool';
export type { DetectTask } from './detectWorker';
export * from './follower';
export * from './indexerService';
export * from './chainAssets';
export * from './depositEvents';
export { persistBlock, rejectDetached, rewindTo } from './transferStore';
