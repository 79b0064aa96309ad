export * from './records';
export * from './attempts';
