export * from './addresses';
export * from './networks';
export { OP_COMMENT, OP_EXCESSES, OP_TRANSFER_NOTIFICATION, type TonBlock, commentOf, detect } from './detect';
