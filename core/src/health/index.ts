export * from './chainHealth';
