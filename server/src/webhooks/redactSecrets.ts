import type { WebhookSecrets } from './webhookSecrets';

const MIN_SECRET = 4;
// A prefix shorter than this left at a cut is too little of a secret to matter (and too likely
// to be ordinary text to strip).
const MIN_TAIL = 4;

/**
 * Every form in which a receiver (or a proxy in front of it) may echo a secret back: as is,
 * URL-encoded, JSON-escaped (`\/`). A Slack incoming-webhook URL is a credential in each of its
 * parts: the whole URL, its path alone, and the token (last path segment) alone.
 */
export function secretForms(secrets: WebhookSecrets): string[] {
  const raw: string[] = [secrets.signingSecret];
  if (secrets.botToken) raw.push(secrets.botToken, secrets.botToken.slice(secrets.botToken.indexOf(':') + 1));
  if (secrets.url) {
    raw.push(secrets.url, secrets.url.replace(/\/+$/, ''));
    try {
      const u = new URL(secrets.url);
      raw.push(`${u.host}${u.pathname}`, u.pathname, u.pathname.replace(/^\/+/, ''));
      const token = u.pathname.split('/').filter(Boolean).pop();
      if (token && token.length >= 8) raw.push(token);
    } catch {
      /* a stored URL always parses; nothing more to add otherwise */
    }
  }
  const forms = new Set<string>();
  for (const v of raw) {
    if (!v || v.length < MIN_SECRET) continue;
    forms.add(v);
    forms.add(encodeURIComponent(v));
    forms.add(v.replaceAll('/', '\\/'));
  }
  // Longest first: a whole URL becomes one marker, not a marker per part.
  return [...forms].sort((a, b) => b.length - a.length);
}

/** Per secrets object (the dispatcher keeps one per webhook version): computed once, not per attempt. */
const formsOf = new WeakMap<WebhookSecrets, string[]>();

/**
 * Replaces every form of the webhook's secrets in a text (error messages, receiver bodies)
 * before it is stored or cut. `cutAtEnd`: the text is the first part of something longer, so a
 * secret may start at its very end; a trailing beginning of one is redacted too.
 */
export function redact(text: string, secrets: WebhookSecrets, cutAtEnd = false): string {
  // Most receivers answer with an empty or tiny body: nothing to look for.
  if (text.length < MIN_TAIL) return text;
  let forms = formsOf.get(secrets);
  if (!forms) {
    forms = secretForms(secrets);
    formsOf.set(secrets, forms);
  }
  let out = text;
  for (const f of forms) out = out.split(f).join('[redacted]');
  if (!cutAtEnd) return out;
  for (const f of forms) {
    for (let k = Math.min(f.length - 1, out.length); k >= MIN_TAIL; k--) {
      if (out.endsWith(f.slice(0, k))) {
        out = `${out.slice(0, out.length - k)}[redacted]`;
        break;
      }
    }
  }
  return out;
}
