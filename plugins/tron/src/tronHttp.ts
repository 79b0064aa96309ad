import { NodeCallError, type NodeErrorKind, type NodeHttpOptions, nodeHttpLimits, parseLossless, requestNode } from '@walletd/plugin-kit';

/**
 * The java-tron HTTP API (`POST /wallet/…`, `/walletsolidity/…` with a JSON body) over the kit's
 * `requestNode` (undici, the answer read as bytes up to the cap), under the same rules as the kit's
 * JSON-RPC client: one deadline per attempt, idempotent reads retried after a transport failure
 * (no answer, a reset, a timeout, HTTP 429/502/503/504) by the kit's `retry`, a broadcast never
 * repeated, answers parsed losslessly (amounts never pass through a float), every failure a `NodeCallError` (`node_error`) naming the path, never the credentials.
 *
 * Credentials in `rpcUrl`: `https://TRON-PRO-API-KEY:<key>@api.trongrid.io` sends the key as
 * TronGrid's `TRON-PRO-API-KEY` header; any other `user:pass@` is HTTP basic auth.
 */
/** The kit's REST transport options (`nodeHttpLimits`: the same defaults as its JSON-RPC client). */
export type TronHttpOptions = NodeHttpOptions;

export interface TronHttp {
  /** A read (retried after transport failures); the parsed answer. */
  post<T>(path: string, body: Record<string, unknown>): Promise<T>;
  /** A read whose body is returned unparsed, as bytes (the raw block spliced for the worker). */
  postRaw(path: string, body: Record<string, unknown>): Promise<Uint8Array>;
  /** A publishing call: one attempt whatever happens. */
  send<T>(path: string, body: Record<string, unknown>): Promise<T>;
}

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

  const fail = (path: string, kind: NodeErrorKind, message: string, extra: { attempts?: number; status?: number } = {}) =>
    new NodeCallError(message, { method: path, kind, ...extra });

  async function request(path: string, body: Record<string, unknown>, idempotent: boolean): Promise<Buffer> {
    const answer = await requestNode(path, `${base}${path}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      ...nodeHttpLimits(options, idempotent),
    });
    if (answer.status < 200 || answer.status >= 300)
      throw fail(path, 'http', `${path} answered HTTP ${answer.status}`, { status: answer.status });
    // java-tron answers a refused query with HTTP 200 and {"Error": "…"}.
    const head = answer.body.subarray(0, 40).toString('utf8').replace(/\s/g, '');
    if (head.startsWith('{"Error"')) {
      const error = (parse(path, answer.body.toString('utf8')) as { Error?: unknown }).Error;
      throw fail(path, 'rpc', `${path}: ${String(error).slice(0, 300)}`);
    }
    return answer.body;
  }

  function parse(path: string, text: string): unknown {
    try {
      return parseLossless(text);
    } catch {
      throw fail(path, 'http', `${path} answered with a body that is not JSON`);
    }
  }

  return {
    post: async <T>(path: string, body: Record<string, unknown>) => parse(path, (await request(path, body, true)).toString('utf8')) as T,
    postRaw: (path, body) => request(path, body, true),
    send: async <T>(path: string, body: Record<string, unknown>) => parse(path, (await request(path, body, false)).toString('utf8')) as T,
  };
}
