/** @walletd/client: a typed client for walletd's HTTP API (issue 47 §1): not built yet, see README.md; the webhook verifier meanwhile. */
export { parseEvent, verifySignature, WalletdEventError } from '@walletd/receiver';
