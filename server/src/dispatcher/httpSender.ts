import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import { Agent, request } from 'undici';
import type { DestinationPolicy } from '../webhooks/destinationPolicy';
import { guardedLookup } from '../webhooks/guardedLookup';
import { isSuccess, parseRetryAfter } from './retryPolicy';
import { truncateUtf8 } from './truncateUtf8';

export interface PostResult {
  ok: boolean;
  /** null when nothing reached the receiver (refused destination, DNS, connect error, timeout before headers). */
  responseCode: number | null;
  responseBody: string | null;
  error: string | null;
  retryAfterSeconds: number | null;
}

/** Redacts secrets; `cutAtEnd` when the text is only the start of a longer body. */
export type Cleaner = (text: string, cutAtEnd?: boolean) => string;

const RESPONSE_BODY_LIMIT = 2048;
// Read past the stored limit so a secret (at most 256 characters) straddling it is redacted whole.
const READ_LIMIT = RESPONSE_BODY_LIMIT + 1024;

/**
 * POSTs through undici agents whose DNS lookup enforces the destination policy; redirects are
 * not followed (a 3xx is a failed attempt); the whole attempt has one deadline.
 */
export class HttpSender {
  readonly #https: Agent;
  readonly #http: Agent;

  constructor(
    private readonly policy: DestinationPolicy,
    private readonly timeoutMs: number,
    connectionsPerOrigin = 32,
  ) {
    const common = { connections: connectionsPerOrigin, keepAliveTimeout: 30_000, connectTimeout: timeoutMs };
    this.#https = new Agent({ ...common, connect: { lookup: guardedLookup(policy, false) as never } });
    this.#http = new Agent({ ...common, connect: { lookup: guardedLookup(policy, true) as never } });
  }

  /**
   * `clean` redacts secrets from what is kept (error text, response body) before it is cut; it is
   * required so that no kind can store a body cut through the middle of a secret.
   */
  async post(rawUrl: string, headers: Record<string, string>, body: string, clean: Cleaner): Promise<PostResult> {
    const { url, plain, why } = this.#target(rawUrl);
    if (why) return failure(`destination refused: ${why}`);
    const signal = AbortSignal.timeout(this.timeoutMs);
    let res: Awaited<ReturnType<typeof request>>;
    try {
      res = await request(url, { method: 'POST', headers, body, dispatcher: plain ? this.#http : this.#https, signal });
    } catch (e) {
      if (signal.aborted) return failure(`timeout after ${this.timeoutMs} ms`);
      const err = e as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
      const code = err.code ?? err.cause?.code;
      const message = clean(err.cause?.message ?? err.message).slice(0, 300);
      return failure(code === 'EDESTINATION' ? `destination refused: ${message}` : `${message}${code ? ` (${code})` : ''}`);
    }
    // The outcome is the status code alone (spec 3.3): decided now, whatever the body does next.
    const ok = isSuccess(res.statusCode);
    const kept = await readLimited(res.body, READ_LIMIT);
    // Redact the whole read first, then cut: a secret straddling the 2 KB limit is gone whole.
    return {
      ok,
      responseCode: res.statusCode,
      responseBody: truncateUtf8(Buffer.from(clean(kept.bytes.toString('utf8'), kept.cut)), RESPONSE_BODY_LIMIT),
      error: ok ? null : `HTTP ${res.statusCode}`,
      retryAfterSeconds: res.statusCode === 429 ? parseRetryAfter(res.headers['retry-after']) : null,
    };
  }

  /**
   * The parsed URL and, for a literal address (which never goes through the guarded lookup), the
   * policy's verdict: fixed for this sender's lifetime, so worked out once per URL, not per
   * attempt. Host names are still checked on every new connection by the lookup.
   */
  #target(rawUrl: string): Target {
    const known = this.#targets.get(rawUrl);
    if (known) return known;
    const url = new URL(rawUrl);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const plain = url.protocol === 'http:';
    const why = isIP(host)
      ? (this.policy.refusal(host) ?? (plain && !this.policy.isAllowListed(host) ? 'plain http to a non-allow-listed address' : null))
      : null;
    const target = { url, plain, why };
    if (this.#targets.size >= 1024) this.#targets.clear();
    this.#targets.set(rawUrl, target);
    return target;
  }

  readonly #targets = new Map<string, Target>();

  async close(): Promise<void> {
    await Promise.all([this.#https.close(), this.#http.close()]);
  }
}

interface Target {
  url: URL;
  plain: boolean;
  /** Why a literal address is refused, or null. */
  why: string | null;
}

const failure = (error: string): PostResult => ({ ok: false, responseCode: null, responseBody: null, error, retryAfterSeconds: null });

/**
 * Reads at most `limit` bytes of the body, then drops the rest (`cut` tells whether there was
 * more). A body that stalls or breaks past the attempt's deadline keeps what arrived: it is
 * diagnostic only. Read with events, not an async iterator (an iterator and a promise per chunk
 * measured ~4 % of the dispatcher's CPU); the stream is destroyed only when it is cut short.
 */
function readLimited(body: Readable, limit: number): Promise<{ bytes: Buffer; cut: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      body.off('data', onData);
      const all = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
      resolve({ bytes: all.subarray(0, limit), cut: all.length > limit });
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size > limit) {
        finish();
        body.destroy();
      }
    };
    body.on('data', onData);
    body.once('end', finish);
    body.once('close', finish);
    // Stays attached: an error after the read ended (the destroy above) must not go unhandled.
    // Aborted or reset mid-body: keep the part received.
    body.on('error', finish);
  });
}
