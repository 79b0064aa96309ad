import { NodeCallError, type NodeErrorKind, type NodeHttpOptions, nodeHttpLimits, parseLossless, requestNode } from '@walletd/plugin-kit';

/**
 * toncenter's HTTP API v2 (`GET /getMasterchainInfo?…`, `POST /runGetMethod`, `POST /sendBoc`;
 * answers `{ok, result}` or `{ok: false, error, code}`) over the kit's `requestNode` (undici, the
 * answer read as bytes up to the cap) under the kit's node-call rules: one deadline per attempt,
 * reads retried after a transport failure (no answer, a reset, a timeout, HTTP 429/502/503/504) by
 * the kit's `retry`, a send never repeated, answers parsed losslessly
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

/** The kit's REST transport options (`nodeHttpLimits`: the same defaults as its JSON-RPC client). */
export type ToncenterHttpOptions = NodeHttpOptions;

export function createToncenterHttp(options: ToncenterHttpOptions): ToncenterHttp {
  const root = new URL(options.url);
  const auth = new URLSearchParams(root.search);
  root.search = '';
  const base = root.toString().replace(/\/+$/, '');
  const fail = (method: string, kind: NodeErrorKind, message: string, extra: { attempts?: number; status?: number } = {}) =>
    new NodeCallError(message, { method, kind, ...extra });

  async function call<T>(
    method: string,
    params: Record<string, string | number>,
    body: Record<string, unknown> | undefined,
    idempotent: boolean,
  ) {
    const query = new URLSearchParams(auth);
    for (const [k, v] of Object.entries(params)) query.set(k, String(v));
    const answer = await requestNode(method, `${base}/${method}?${query}`, {
      method: body ? 'POST' : 'GET',
      headers: body ? { 'content-type': 'application/json', accept: 'application/json' } : { accept: 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
      ...nodeHttpLimits(options, idempotent),
    });
    let parsed: { ok?: boolean; result?: unknown; error?: unknown; code?: number };
    try {
      parsed = parseLossless(answer.body.toString('utf8')) as typeof parsed;
    } catch {
      throw fail(method, 'http', `${method} answered HTTP ${answer.status} with a body that is not JSON`, { status: answer.status });
    }
    if (parsed.ok !== true)
      throw fail(method, 'rpc', `${method}: ${String(parsed.error ?? `HTTP ${answer.status}`).slice(0, 300)}`, { status: answer.status });
    return parsed.result as T;
  }

  return {
    get: (method, params = {}) => call(method, params, undefined, true),
    post: (method, body) => call(method, {}, body, true),
    send: (method, body) => call(method, {}, body, false),
  };
}
