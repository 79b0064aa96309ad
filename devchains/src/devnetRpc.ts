import { BaseError } from '@walletd/core';
/** The devnet's own node calls (anvil on loopback): what `walletd dev` and the devnet's start need. */
/**
 * undici's "fetch failed" hides why; the cause (connection refused, DNS, reset) and the node's
 * URL are what someone running `walletd dev fund` needs to fix it.
 */
export function describeFetchError(url: string, e: unknown): string {
  const err = e as Error & { cause?: Error & { code?: string; errors?: (Error & { code?: string })[] } };
  // Node reports a refused dual-stack connect as an AggregateError without a message of its own.
  const inner = err.cause?.errors?.[0] ?? err.cause;
  const why = inner
    ? `${inner.message || inner.code || String(inner)}${inner.code && !inner.message?.includes(inner.code) ? ` (${inner.code})` : ''}`
    : err.message;
  return `the devnet node at ${url} did not answer: ${why}`;
}

export async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
  } catch (e) {
    throw new BaseError('devchain_failed', describeFetchError(url, e), { cause: e, retriable: true });
  }
  if (!res.ok) throw new BaseError('devchain_failed', `the devnet node at ${url} answered ${method} with HTTP ${res.status}`);
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new BaseError('devchain_failed', `${method}: ${body.error.message}`);
  return body.result as T;
}

export async function waitMined(url: string, hash: string): Promise<{ status: string; contractAddress: string | null }> {
  const until = Date.now() + 15_000;
  for (;;) {
    const r = await rpc<{ status: string; contractAddress: string | null } | null>(url, 'eth_getTransactionReceipt', [hash]);
    if (r) return r;
    if (Date.now() > until) throw new BaseError('devchain_failed', `transaction ${hash} was not mined`, { retriable: true });
    await new Promise((res) => setTimeout(res, 20));
  }
}
