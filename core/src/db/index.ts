export * from './createDb';
export * from './boundedReads';
export * from './embeddedPostgres';
export { migrationSource } from './migrations';
export * from './isDatabaseUnavailable';
export { runPrepared, type PreparedStatement } from './prepared';
export * from './diskFull';
export * from './freeSpaceFloor';
export * from './superviseEmbeddedPostgres';
