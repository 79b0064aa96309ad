/** @walletd/client: a typed client for walletd's HTTP API (issue 47 §1; being built). */
export { parseEvent, verifySignature, WalletdEventError } from '@walletd/receiver';
