import type { WebhookSecrets } from '../secrets/webhookSecrets';
import { chatMessage } from './chatMessage';
import type { ClaimedDelivery } from './deliveryStore';
import type { Cleaner, HttpSender, PostResult } from './httpSender';
import { serviceSignature, standardWebhooksHeaders } from '../secrets/signing';

const USER_AGENT = 'walletd-webhooks/1';

/** The one request of an attempt, by webhook type: signed JSON for `api`, a chat message for the others. */
export function sendDelivery(
  sender: HttpSender,
  telegramApiBase: string,
  d: ClaimedDelivery,
  secrets: WebhookSecrets,
  clean: Cleaner,
): Promise<PostResult> {
  const json = { 'content-type': 'application/json', 'user-agent': USER_AGENT };
  switch (d.type) {
    case 'api':
      return sender.post(
        d.config.url as string,
        {
          ...json,
          'x-service-signature': serviceSignature(secrets.signingSecret, d.body),
          ...standardWebhooksHeaders(secrets.signingSecret, d.eventId, d.body),
        },
        d.body,
        clean,
      );
    case 'telegram':
      return sender.post(
        `${telegramApiBase}/bot${secrets.botToken}/sendMessage`,
        json,
        JSON.stringify({ chat_id: d.config.chatId, text: chatMessage(d.body), disable_web_page_preview: true }),
        clean,
      );
    case 'slack':
      return sender.post(secrets.url as string, json, JSON.stringify({ text: chatMessage(d.body) }), clean);
    default:
      return Promise.resolve({
        ok: false,
        responseCode: null,
        responseBody: null,
        error: `unknown webhook type ${d.type}`,
        retryAfterSeconds: null,
      });
  }
}
