export * from './actions';
export * from './plans';
export * from './ipAllowList';
