export * from './registry';
export * from './openapi';
export * from './common';
export * from './me';
export * from './wallets';
export * from './events';
export * from './webhooks';
export * from './chainReads';
