export * from './concatBytes';
export * from './jsonRpcClient';
export * from './parseLossless';
export * from './nodeAnswerOf';
export * from './readCapped';
export * from './wrongHeightError';
export * from './nodeUnavailable';
