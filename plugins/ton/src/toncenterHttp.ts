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
 * toncenter's HTTP API v2 (`GET /getMasterchainInfo?…`, `POST /runGetMethod`, `POST /sendBoc`;
 * answers `{ok, result}` or `{ok: false, error, code}`) under core's node-call rules: one deadline
 * per attempt, reads retried after a transport failure (no answer, a reset, a timeout, HTTP
 * 429/502/503/504) with a doubling back-off, a send never repeated, answers parsed losslessly
 * (balances and logical times never pass through a float), failures as `NodeCallError`.
 * `rpcUrl` is the API root (`https://toncenter.com/api/v2`); its query (`?api_key=…`) is sent with
 * every call and never shown in an error.
 */
export interface ToncenterHttp {
  get<T>(method: string, params?: Record<string, string | number>): Promise<T>;
  /** A read with a JSON body (runGetMethod): retried like a GET. */
  post<T>(method: string, body: Record<string, unknown>): Promise<T>;
  /** A publishing call (sendBoc): one attempt whatever happens. */
  send<T>(method: string, body: Record<string, unknown>): Promise<T>;
}

const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);
class Transient extends Error {}

export interface ToncenterHttpOptions {
  url: string;
  timeoutMs?: number;
  retries?: number;
  backoffMs?: number;
  /** The most bytes one answer may have (`chains[].maxResponseBytes`); default 64 MiB. */
  maxResponseBytes?: number;
  /** Who the node serves ("ton/mainnet"), for messages. */
  name?: string;
}

export function createToncenterHttp(options: ToncenterHttpOptions): ToncenterHttp {
  const root = new URL(options.url);
  const auth = new URLSearchParams(root.search);
  root.search = '';
  const base = root.toString().replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 15_000;
  const retries = options.retries ?? 2;
  const backoffMs = options.backoffMs ?? 250;
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const fail = (method: string, kind: NodeErrorKind, message: string, extra: { attempts?: number; status?: number } = {}) =>
    new NodeCallError(message, { method, kind, ...extra });

  async function attempt(
    method: string,
    query: URLSearchParams,
    body?: Record<string, unknown>,
  ): Promise<{ status: number; text: string }> {
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const res = await fetch(`${base}/${method}?${query}`, {
        method: body ? 'POST' : 'GET',
        headers: body ? { 'content-type': 'application/json', accept: 'application/json' } : { accept: 'application/json' },
        ...(body ? { body: JSON.stringify(body) } : {}),
        signal,
      });
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

  async function call<T>(
    method: string,
    params: Record<string, string | number>,
    body: Record<string, unknown> | undefined,
    idempotent: boolean,
  ) {
    const query = new URLSearchParams(auth);
    for (const [k, v] of Object.entries(params)) query.set(k, String(v));
    const attempts = idempotent ? 1 + retries : 1;
    for (let n = 1; ; n++) {
      let answer: { status: number; text: string };
      try {
        answer = await attempt(method, query, body);
      } catch (e) {
        if (e instanceof ResponseTooLarge) throw tooLargeError(options.name, method, e.limit);
        const message = (e as Error).message;
        if (n >= attempts) {
          const kind: NodeErrorKind = message.startsWith('timed out') ? 'timeout' : message.startsWith('HTTP') ? 'http' : 'unreachable';
          throw fail(method, kind, `${method} failed: ${message}`, { attempts: n });
        }
        await new Promise((r) => setTimeout(r, backoffMs * 2 ** (n - 1)));
        continue;
      }
      let parsed: { ok?: boolean; result?: unknown; error?: unknown; code?: number };
      try {
        parsed = parseLossless(answer.text) as typeof parsed;
      } catch {
        throw fail(method, 'http', `${method} answered HTTP ${answer.status} with a body that is not JSON`, { status: answer.status });
      }
      if (parsed.ok !== true)
        throw fail(method, 'rpc', `${method}: ${String(parsed.error ?? `HTTP ${answer.status}`).slice(0, 300)}`, { status: answer.status });
      return parsed.result as T;
    }
  }

  return {
    get: (method, params = {}) => call(method, params, undefined, true),
    post: (method, body) => call(method, {}, body, true),
    send: (method, body) => call(method, {}, body, false),
  };
}
