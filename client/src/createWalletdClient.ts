import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './api.generated';
import { idempotencyKeys } from './idempotencyKeys';
import { type CursorPath, each, type ItemOf, type Page, type PageParams, pages } from './pages';
import { type RetryOptions, retryingFetch } from './retryingFetch';

export interface WalletdClientOptions {
  /** walletd's address, e.g. `http://127.0.0.1:3000` (`/v1` is added unless the URL ends with it). */
  baseUrl: string;
  /** An API key (`svc_live_…`), sent as `Authorization: Bearer`. */
  apiKey: string;
  /** Retries on 429/502/503/504 and failed connections (README "Retries"); `{ maxRetries: 0 }` turns them off. */
  retry?: RetryOptions;
  /** Makes the idempotency keys the client fills (default: a random UUID per call). */
  newIdempotencyKey?: () => string;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
}

/** openapi-fetch's client on walletd's paths, plus the cursor iterators. */
export type WalletdClient = Client<paths> & {
  /** Every item of a cursor list (`/events`, `/transactions`, `/wallets/{id}/withdrawals`), page after page. */
  each<P extends CursorPath>(
    path: P,
    ...params: PageParams<P> extends { path: unknown } ? [PageParams<P>] : [PageParams<P>?]
  ): AsyncGenerator<ItemOf<P>>;
  /** The pages of a cursor list, each with the cursor to resume from. */
  pages<P extends CursorPath>(
    path: P,
    ...params: PageParams<P> extends { path: unknown } ? [PageParams<P>] : [PageParams<P>?]
  ): AsyncGenerator<Page<P>>;
};

export function createWalletdClient(options: WalletdClientOptions): WalletdClient {
  const root = options.baseUrl.replace(/\/+$/, '');
  const client = createClient<paths>({
    baseUrl: root.endsWith('/v1') ? root : `${root}/v1`,
    headers: { authorization: `Bearer ${options.apiKey}` },
    fetch: retryingFetch(options.fetch ?? globalThis.fetch, options.retry),
  });
  client.use(idempotencyKeys(options.newIdempotencyKey));
  return Object.assign(client, {
    each: <P extends CursorPath>(path: P, params?: PageParams<P>) => each(client, path, params),
    pages: <P extends CursorPath>(path: P, params?: PageParams<P>) => pages(client, path, params),
  }) as WalletdClient;
}
