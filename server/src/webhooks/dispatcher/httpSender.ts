import { isIP } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';
import { Agent, type Dispatcher } from 'undici';
import type { DestinationPolicy } from '../destinationPolicy';
import { guardedLookup } from '../guardedLookup';
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
    const reply = await exchange(plain ? this.#http : this.#https, url, headers, body, this.timeoutMs, READ_LIMIT);
    if ('error' in reply) {
      if (reply.error === null) return failure(`timeout after ${this.timeoutMs} ms`);
      const err = reply.error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
      const code = err.code ?? err.cause?.code;
      const message = clean(err.cause?.message ?? err.message).slice(0, 300);
      return failure(code === 'EDESTINATION' ? `destination refused: ${message}` : `${message}${code ? ` (${code})` : ''}`);
    }
    // The outcome is the status code alone (spec 3.3), whatever the body did after it.
    const ok = isSuccess(reply.statusCode);
    // Redact the whole read first, then cut: a secret straddling the 2 KB limit is gone whole.
    // NUL becomes U+FFFD, as undecodable bytes do: PostgreSQL text cannot hold it, and one such
    // body failed the whole batch's record (every outcome in it dropped, every event POSTed again).
    return {
      ok,
      responseCode: reply.statusCode,
      responseBody: truncateUtf8(
        Buffer.from(clean(reply.bytes.toString('utf8').replaceAll('\u0000', '\uFFFD'), reply.cut)),
        RESPONSE_BODY_LIMIT,
      ),
      error: ok ? null : `HTTP ${reply.statusCode}`,
      retryAfterSeconds: reply.statusCode === 429 ? parseRetryAfter(reply.headers['retry-after']) : null,
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

type Exchange =
  | { statusCode: number; headers: IncomingHttpHeaders; bytes: Buffer; cut: boolean }
  /** `error` null: the deadline passed before the response's headers. */
  | { error: Error | null };

/**
 * One POST through undici's `dispatch` with a handler of our own, under one deadline for the
 * whole exchange: at most `limit` bytes of the response body are kept (`cut` tells whether there
 * was more), then the exchange is aborted. Once the headers are in, a body that stalls, breaks or
 * outlives the deadline keeps what arrived: it is diagnostic only.
 * Why not `request()`: per attempt it made an AbortSignal.timeout (a timer, a weak reference and
 * event listeners) and a Readable for the body, which with their garbage were a large share of
 * the dispatcher's CPU per delivery (issue 17; `npm run bench -- outbox`, figures in
 * bench/README.md). A plain timer and this handler do the same job.
 */
function exchange(
  dispatcher: Dispatcher,
  url: URL,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  limit: number,
): Promise<Exchange> {
  return new Promise((resolve) => {
    let controller: Dispatcher.DispatchController | null = null;
    let settled = false;
    let statusCode = 0;
    let responseHeaders: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (reply: Exchange) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(reply);
    };
    const respond = () => {
      const all = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
      settle({ statusCode, headers: responseHeaders, bytes: all.subarray(0, limit), cut: all.length > limit });
    };
    const timer = setTimeout(() => {
      if (statusCode > 0) respond();
      else settle({ error: null });
      // Not yet started (waiting for a connection): aborted as soon as it starts.
      controller?.abort(new Error('deadline passed'));
    }, timeoutMs);
    dispatcher.dispatch(
      { origin: url.origin, path: url.search ? `${url.pathname}${url.search}` : url.pathname, method: 'POST', headers, body },
      {
        onRequestStart(c) {
          controller = c;
          if (settled) c.abort(new Error('deadline passed'));
        },
        onResponseStart(_c, status, h) {
          // 1xx interim responses are not the answer.
          if (status < 200) return;
          statusCode = status;
          responseHeaders = h;
        },
        onResponseData(c, chunk) {
          if (settled) return;
          chunks.push(chunk);
          size += chunk.length;
          if (size > limit) {
            respond();
            c.abort(new Error('response body past the read limit'));
          }
        },
        onResponseEnd: respond,
        onResponseError(_c, error) {
          if (statusCode > 0) respond();
          else settle({ error });
        },
      },
    );
  });
}
