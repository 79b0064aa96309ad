/**
 * The follower's store, one operation per file under `transfers/`; this module keeps the names
 * every caller imports.
 */
export type { AddressRow, ChainKey, Cursor } from '../types';
export { advanceCursor, readCursor, writeCursor } from './transfers/cursor';
export { type RecordedBlock, lastRecordedBlock, recentHash, recordedBlocksBelow } from './transfers/recentBlocks';
export { addressesFor } from './transfers/addressesFor';
export { type Announced, type Seen, insertTransfers } from './transfers/insertTransfers';
export { persistBlock } from './transfers/persistBlock';
export { persistBlocks } from './transfers/persistBlocks';
export { persistMempool } from './transfers/persistMempool';
export { rewindTo } from './transfers/rewindTo';
export { rejectDetached } from './transfers/rejectDetached';
export { pendingTransfers } from './transfers/pendingTransfers';
export { applyDecisions } from './transfers/applyDecisions';
