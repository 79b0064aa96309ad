import type { Client } from 'openapi-fetch';
import { CURSOR_OPERATIONS, type paths } from './api.generated';
import { WalletdApiError } from './apiError';

/** The list operations that page with `after` and `next`, and the property holding each page's items. */
export type CursorPath = keyof typeof CURSOR_OPERATIONS;
type ListOf<P extends CursorPath> = paths[P]['get']['responses'][200]['content']['application/json'];
type ItemsKey<P extends CursorPath> = (typeof CURSOR_OPERATIONS)[P] & keyof ListOf<P>;
export type ItemOf<P extends CursorPath> = ListOf<P>[ItemsKey<P>] extends readonly (infer I)[] ? I : never;
type Params<P extends CursorPath> = paths[P]['get']['parameters'];
export type PageParams<P extends CursorPath> = { query?: Params<P>['query'] } & (Params<P>['path'] extends undefined
  ? { path?: undefined }
  : { path: Params<P>['path'] });

/**
 * One page: its items, whether more follow now, and the cursor to pass as `after` for what comes
 * next (null where the list has no cursor past its end; the event feed always gives one, to poll).
 */
export interface Page<P extends CursorPath> {
  items: ItemOf<P>[];
  hasMore: boolean;
  next: string | null;
}

/** The pages of a cursor list from `params.query.after` (or the start) to its end. */
export async function* pages<P extends CursorPath>(client: Client<paths>, path: P, params?: PageParams<P>): AsyncGenerator<Page<P>> {
  const key = CURSOR_OPERATIONS[path];
  let after = (params?.query as { after?: unknown } | undefined)?.after;
  for (;;) {
    const query = { ...(params?.query ?? {}), ...(after === undefined ? {} : { after }) };
    const get = client.GET as (p: string, init: unknown) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
    const { data, error, response } = await get(path, { params: { path: params?.path, query } });
    if (!response.ok) throw WalletdApiError.from(error, response);
    const list = data as Record<string, unknown> & { next: string | number | null; hasMore?: boolean };
    const items = list[key] as ItemOf<P>[];
    const hasMore = list.next !== null && list.hasMore !== false && items.length > 0;
    yield { items, hasMore, next: list.next === null ? null : String(list.next) };
    if (!hasMore) return;
    after = list.next;
  }
}

/** Every item of a cursor list, page after page: `for await (const e of walletd.each('/events'))`. */
export async function* each<P extends CursorPath>(client: Client<paths>, path: P, params?: PageParams<P>): AsyncGenerator<ItemOf<P>> {
  for await (const page of pages(client, path, params)) yield* page.items;
}
