import { NodeCallError, type NodeCallFailure, type NodeErrorKind } from './nodeCallError';
import { parseLossless } from './parseLossless';
import { DEFAULT_MAX_RESPONSE_BYTES } from './readCapped';
import { type NodeAnswer, requestNode } from './requestNode';

/**
 * One HTTP JSON-RPC client for every plugin that speaks JSON-RPC: 2.0 (EVM nodes) or 1.0 (Bitcoin
 * Core and its forks, which answer an RPC error with HTTP 500 and a JSON body naming it).
 *
 * - `rpcUrl` may carry credentials (http://user:pass@host:8332): sent as basic auth, never logged
 *   and never part of a message.
 * - One deadline per attempt (`timeoutMs`, headers and body). Redirects are not followed: a node
 *   answering 3xx is misconfigured, and the credentials are never sent on to another address.
 * - undici's `request`, the body kept as bytes: the follower fetches every block through it on the
 *   main thread, and global `fetch` (web streams, then a decode to text and an encode back for the
 *   raw block) cost about twice the CPU per 150 KB answer (issue 17).
 * - Idempotent reads are retried `retries` times after a transport failure (no answer, a reset,
 *   a timeout, HTTP 429/502/503/504), by the kit's one `retry` (doubling, jittered back-off). A JSON-RPC error is the node's
 *   answer and is never retried. A broadcast (`NEVER_RETRIED`, or `{ idempotent: false }`) is
 *   never repeated: a send whose answer was lost may have reached the node; the caller asks the
 *   node whether it knows the transaction instead.
 * - Results are parsed losslessly (`parseLossless`): a number with a fraction arrives as its
 *   decimal text, so no amount passes through a float; the body's text is returned too.
 * - An answer is read up to `maxResponseBytes` (`readCapped`): past it the connection is closed and
 *   the call fails (`too_large`, never retried: the node would send the same again).
 * - Every failure is a `NodeCallError`: a `BaseError('node_error')` (502 at the API) whose `node`
 *   says what happened (`kind`: `timeout`, `unreachable`, `http`, `rpc`, `too_large`, `wrong_height`; the method;
 *   attempts; the node's own code for an RPC error). Kept out of `details`, which the API renders
 *   into the body. Its message says it all: no cause repeating it (a log line prints the causes'
 *   messages after the error's own: "timed out after 15000 ms: timed out after 15000 ms").
 */
export interface JsonRpcClientOptions {
  url: string;
  dialect: '2.0' | '1.0';
  /** Per attempt; default 15000. */
  timeoutMs?: number;
  /** Further attempts of an idempotent call after a transport failure; default 2. */
  retries?: number;
  /** First pause between attempts (before jitter), doubled each time; default 250. */
  backoffMs?: number;
  /** The most bytes one answer may have; default `DEFAULT_MAX_RESPONSE_BYTES` (64 MiB). */
  maxResponseBytes?: number;
  /** Who the node serves ("ethereum/mainnet"), for messages; never the URL. */
  name?: string;
}

export interface CallOptions {
  /** false: one attempt only, whatever the failure. Methods in `NEVER_RETRIED` are never repeated. */
  idempotent?: boolean;
}

export interface RpcAnswer<T> {
  result: T;
  /** The whole response body as the node sent it. */
  text: string;
}

export interface JsonRpcClient {
  call<T>(method: string, params: unknown[], options?: CallOptions): Promise<RpcAnswer<T>>;
  /**
   * The response body's bytes unparsed (`{"jsonrpc":"2.0","id":…,"result":…}`), for callers that
   * splice it into bytes parsed elsewhere (the EVM raw block, with `concatBytes`); an error answer
   * still throws.
   */
  callRaw(method: string, params: unknown[], options?: CallOptions): Promise<Uint8Array>;
  /**
   * `callRaw`'s bytes as the chunks they arrived in, not joined: for a caller that copies them on
   * into one buffer of its own (`concatBytes(['{"block":', ...parts, …])`), one copy fewer.
   */
  callRawParts(method: string, params: unknown[], options?: CallOptions): Promise<readonly Uint8Array[]>;
  /**
   * Idempotent reads in one request (a JSON-RPC 2.0 batch), results in the order asked; an error
   * answer to any of them throws, as `call` does. A node that does not answer with an array (some
   * providers refuse batches) is asked call by call instead.
   */
  batch<T>(calls: readonly { method: string; params: unknown[] }[]): Promise<T[]>;
}

/** Publishing calls: repeating one blindly could double an effect nobody observed. */
export const NEVER_RETRIED: ReadonlySet<string> = new Set(['eth_sendRawTransaction', 'eth_sendTransaction', 'sendrawtransaction']);

export function createJsonRpcClient(options: JsonRpcClientOptions): JsonRpcClient {
  const url = new URL(options.url);
  const auth = url.username
    ? `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`
    : null;
  url.username = '';
  url.password = '';
  const endpoint = url.toString();
  const timeoutMs = options.timeoutMs ?? 15_000;
  const retries = options.retries ?? 2;
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) };
  let id = 0;

  const fail = (method: string, kind: NodeErrorKind, message: string, extra: Partial<NodeCallFailure> = {}) =>
    new NodeCallError(message, { method, kind, ...extra });

  /** The body of an answer that is JSON-RPC (result or error), or a `NodeCallError`. */
  function send(method: string, params: unknown[], callOptions: CallOptions): Promise<NodeAnswer> {
    return requestNode(method, endpoint, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: options.dialect, id: ++id, method, params }),
      timeoutMs,
      maxBytes,
      attempts: callOptions.idempotent === false || NEVER_RETRIED.has(method) ? 1 : 1 + retries,
      ...(options.backoffMs !== undefined ? { backoffMs: options.backoffMs } : {}),
      ...(options.name !== undefined ? { name: options.name } : {}),
    });
  }

  /** Throws the node's RPC error (or a non-JSON-RPC answer) as a BaseError. */
  function checkAnswer(method: string, status: number, body: unknown): void {
    const answer = body as { error?: { code?: number; message?: string; data?: unknown } | null } | null;
    if (answer && typeof answer === 'object' && answer.error) {
      // Substrate nodes name the reason in `data` ("Invalid Transaction" + "Transaction has a bad signature").
      const data = typeof answer.error.data === 'string' ? `: ${answer.error.data}` : '';
      throw fail(method, 'rpc', `${method}: ${answer.error.message ?? 'error'}${data}`, { rpcCode: answer.error.code ?? null });
    }
    if (status < 200 || status >= 300 || !answer || typeof answer !== 'object' || !('result' in answer))
      throw fail(method, 'http', `${method} answered HTTP ${status}`, { status });
  }

  function parse(method: string, status: number, text: string): unknown {
    try {
      return parseLossless(text);
    } catch {
      throw fail(method, 'http', `${method} answered HTTP ${status} with a body that is not JSON`, { status });
    }
  }

  /**
   * An unparsed answer is parsed only when it cannot be a success (an error answer has no
   * "result"): a large block is parsed once, in the worker. The member is looked for in the first
   * chunk (where a node writes it, after `jsonrpc` and `id`); only if it is not there is the body joined.
   */
  function checkRaw(method: string, answer: NodeAnswer): void {
    const { status } = answer;
    const first = answer.parts[0];
    const found = first !== undefined && Buffer.from(first.buffer, first.byteOffset, first.byteLength).indexOf('"result"') >= 0;
    // `answer.body` (a join) only where the first chunk did not settle it.
    if (status < 200 || status >= 300 || (!found && answer.body.indexOf('"result"') < 0))
      checkAnswer(method, status, parse(method, status, answer.body.toString('utf8')));
  }

  async function call<T>(method: string, params: unknown[], callOptions: CallOptions = {}): Promise<RpcAnswer<T>> {
    const { status, body: bytes } = await send(method, params, callOptions);
    const text = bytes.toString('utf8');
    const body = parse(method, status, text);
    checkAnswer(method, status, body);
    return { result: (body as { result: T }).result, text };
  }

  async function batch<T>(calls: readonly { method: string; params: unknown[] }[]): Promise<T[]> {
    if (calls.length === 0) return [];
    const label = `${(calls[0] as { method: string }).method} ×${calls.length}`;
    const first = id + 1;
    const { status, body: bytes } = await requestNode(label, endpoint, {
      method: 'POST',
      headers,
      body: JSON.stringify(calls.map((c) => ({ jsonrpc: options.dialect, id: ++id, method: c.method, params: c.params }))),
      timeoutMs,
      maxBytes,
      attempts: 1 + retries,
      ...(options.backoffMs !== undefined ? { backoffMs: options.backoffMs } : {}),
      ...(options.name !== undefined ? { name: options.name } : {}),
    });
    const answers = parse(label, status, bytes.toString('utf8'));
    if (!Array.isArray(answers)) return Promise.all(calls.map(async (c) => (await call<T>(c.method, c.params)).result));
    const byId = new Map((answers as { id?: unknown }[]).map((a) => [Number(a?.id), a]));
    return calls.map((c, i) => {
      const answer = byId.get(first + i);
      if (answer === undefined) throw fail(c.method, 'http', `${c.method}: the batch answer lacks this call`, { status });
      checkAnswer(c.method, status, answer);
      return (answer as { result: T }).result;
    });
  }

  return {
    call,
    batch,
    async callRaw(method: string, params: unknown[], callOptions: CallOptions = {}): Promise<Uint8Array> {
      const answer = await send(method, params, callOptions);
      checkRaw(method, answer);
      return answer.body;
    },
    async callRawParts(method: string, params: unknown[], callOptions: CallOptions = {}): Promise<readonly Uint8Array[]> {
      const answer = await send(method, params, callOptions);
      checkRaw(method, answer);
      return answer.parts;
    },
  };
}
