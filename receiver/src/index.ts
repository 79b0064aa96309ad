export { SIGNATURE_HEADER, sign, verifySignature } from './signature';
export {
  signStandardWebhook,
  standardWebhookKey,
  verifyStandardWebhook,
  type HeaderValue,
  type StandardWebhookOptions,
  type WebhookHeaders,
} from './standardWebhook';
export { parseEvent, WalletdEventError } from './parseEvent';
export * from './events.generated';
