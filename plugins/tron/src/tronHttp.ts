import {
  DEFAULT_MAX_RESPONSE_BYTES,
  NodeCallError,
  type NodeErrorKind,
  ResponseTooLarge,
  parseLossless,
  readCapped,
  tooLargeError,
} from '@walletd/plugin-kit';

/**
 * The java-tron HTTP API (`POST /wallet/…`, `/walletsolidity/…` with a JSON body) under the same
 * rules as core's JSON-RPC client: one deadline per attempt, idempotent reads retried after a
 * transport failure (no answer, a reset, a timeout, HTTP 429/502/503/504) with a doubling back-off,
 * a broadcast never repeated, answers parsed losslessly (amounts never pass through a float),
 * every failure a `NodeCallError` (`node_error`) naming the path, never the credentials.
 *
 * Credentials in `rpcUrl`: `https://TRON-PRO-API-KEY:<key>@api.trongrid.io` sends the key as
 * TronGrid's `TRON-PRO-API-KEY` header; any other `user:pass@` is HTTP basic auth.
 */
export interface TronHttpOptions {
  url: string;
  timeoutMs?: number;
  retries?: number;
  backoffMs?: number;
  /** The most bytes one answer may have (`chains[].maxResponseBytes`); default 64 MiB. */
  maxResponseBytes?: number;
  /** Who the node serves ("tron/mainnet"), for messages. */
  name?: string;
}

export interface TronHttp {
  /** A read (retried after transport failures); the parsed answer. */
  post<T>(path: string, body: Record<string, unknown>): Promise<T>;
  /** A read whose body is returned unparsed (the raw block spliced for the worker). */
  postRaw(path: string, body: Record<string, unknown>): Promise<string>;
  /** A publishing call: one attempt whatever happens. */
  send<T>(path: string, body: Record<string, unknown>): Promise<T>;
}

const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);
class Transient extends Error {}

export function createTronHttp(options: TronHttpOptions): TronHttp {
  const url = new URL(options.url);
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (url.username) {
    const user = decodeURIComponent(url.username);
    const pass = decodeURIComponent(url.password);
    if (user.toUpperCase() === 'TRON-PRO-API-KEY') headers['TRON-PRO-API-KEY'] = pass;
    else headers.authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
  }
  url.username = '';
  url.password = '';
  const base = url.toString().replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 15_000;
  const retries = options.retries ?? 2;
  const backoffMs = options.backoffMs ?? 250;
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;

  const fail = (path: string, kind: NodeErrorKind, message: string, extra: { attempts?: number; status?: number } = {}) =>
    new NodeCallError(message, { method: path, kind, ...extra });

  async function attempt(path: string, body: Record<string, unknown>): Promise<{ status: number; text: string }> {
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const res = await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body), signal });
      // Read up to the cap, never past it: an oversized answer closes the connection (readCapped).
      const text = (await readCapped(res.body, maxBytes, res.headers.get('content-length'))).toString('utf8');
      if (RETRYABLE_STATUS.has(res.status)) throw new Transient(`HTTP ${res.status}`);
      return { status: res.status, text };
    } catch (e) {
      if (e instanceof Transient || e instanceof ResponseTooLarge) throw e;
      if (signal.aborted) throw new Transient(`timed out after ${timeoutMs} ms`);
      throw new Transient(((e as Error).cause as Error | undefined)?.message ?? (e as Error).message);
    }
  }

  async function request(path: string, body: Record<string, unknown>, idempotent: boolean): Promise<string> {
    const attempts = idempotent ? 1 + retries : 1;
    for (let n = 1; ; n++) {
      let answer: { status: number; text: string };
      try {
        answer = await attempt(path, body);
      } catch (e) {
        if (e instanceof ResponseTooLarge) throw tooLargeError(options.name, path, e.limit);
        const message = (e as Error).message;
        if (n >= attempts) {
          const kind: NodeErrorKind = message.startsWith('timed out') ? 'timeout' : message.startsWith('HTTP') ? 'http' : 'unreachable';
          throw fail(path, kind, `${path} failed: ${message}`, { attempts: n });
        }
        await new Promise((r) => setTimeout(r, backoffMs * 2 ** (n - 1)));
        continue;
      }
      if (answer.status < 200 || answer.status >= 300)
        throw fail(path, 'http', `${path} answered HTTP ${answer.status}`, { status: answer.status });
      // java-tron answers a refused query with HTTP 200 and {"Error": "…"}.
      const head = answer.text.slice(0, 40).replace(/\s/g, '');
      if (head.startsWith('{"Error"')) {
        const error = (parse(path, answer.text) as { Error?: unknown }).Error;
        throw fail(path, 'rpc', `${path}: ${String(error).slice(0, 300)}`);
      }
      return answer.text;
    }
  }

  function parse(path: string, text: string): unknown {
    try {
      return parseLossless(text);
    } catch {
      throw fail(path, 'http', `${path} answered with a body that is not JSON`);
    }
  }

  return {
    post: async <T>(path: string, body: Record<string, unknown>) => parse(path, await request(path, body, true)) as T,
    postRaw: (path, body) => request(path, body, true),
    send: async <T>(path: string, body: Record<string, unknown>) => parse(path, await request(path, body, false)) as T,
  };
}
