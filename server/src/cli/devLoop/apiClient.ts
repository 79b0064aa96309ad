import { BaseError } from '@walletd/core';

/** A running walletd's API as `listen` and `trigger` call it: `--api` (default the local one) and an API key. */
export interface ApiTarget {
  base: string;
  key: string;
}

export function apiTarget(o: { api?: string; key?: string }): ApiTarget {
  const key = o.key ?? process.env.WALLETD_API_KEY;
  if (!key)
    throw new BaseError('usage_invalid', 'an API key is needed: --key or WALLETD_API_KEY (npm start printed one on its first start)');
  const base = (o.api ?? `http://127.0.0.1:${process.env.PORT ?? 8080}`).replace(/\/+$/, '');
  return { base, key };
}

/** One API call; a refusal becomes one line with walletd's own message. */
export async function callApi<T>(t: ApiTarget, method: string, path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${t.base}/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${t.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (e) {
    throw new BaseError('unavailable', `walletd does not answer at ${t.base} (${(e as Error).message}); is npm start running? (--api)`);
  }
  const text = await res.text();
  const json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  if (!res.ok)
    throw new BaseError('unavailable', `${method} /v1${path}: ${res.status} ${String(json.code ?? '')}: ${String(json.message ?? text)}`);
  return json as T;
}
