import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWalletdClient } from '@walletd/client';

/** A real HTTP server on loopback serving a feed of five events, two a page, and a list of three transactions. */
async function feed() {
  const urls: string[] = [];
  const server = createServer((req, res) => {
    urls.push(req.url ?? '');
    const url = new URL(req.url ?? '', 'http://x');
    const after = Number(url.searchParams.get('after') ?? '0');
    res.setHeader('content-type', 'application/json');
    if (url.pathname === '/v1/events') {
      const events = [1, 2, 3, 4, 5]
        .filter((id) => id > after)
        .slice(0, 2)
        .map((id) => ({ id: String(id), type: 'deposit.confirmed' }));
      const next = events.length ? (events.at(-1) as { id: string }).id : String(after);
      res.end(JSON.stringify({ events, next, hasMore: Number(next) < 5 }));
    } else {
      const transactions = [30, 20, 10]
        .filter((id) => !after || id < after)
        .slice(0, 2)
        .map((id) => ({ id }));
      res.end(JSON.stringify({ transactions, next: transactions.length === 2 ? (transactions[1] as { id: number }).id : null }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = createWalletdClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: 'k' });
  return { client, urls, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('cursor pages', () => {
  it('each() walks the event feed to its end with after=next; pages() gives the cursor to poll from', async () => {
    const f = await feed();
    try {
      const ids: string[] = [];
      for await (const e of f.client.each('/events', { query: { types: 'deposit.confirmed' } })) ids.push(e.id);
      expect(ids).toEqual(['1', '2', '3', '4', '5']);
      expect(f.urls).toEqual([
        '/v1/events?types=deposit.confirmed',
        '/v1/events?types=deposit.confirmed&after=2',
        '/v1/events?types=deposit.confirmed&after=4',
      ]);
      const pages = [];
      for await (const p of f.client.pages('/events', { query: { after: '4' } })) pages.push(p);
      expect(pages.map((p) => [p.items.length, p.hasMore, p.next])).toEqual([[1, false, '5']]);
    } finally {
      await f.close();
    }
  });

  it('each() stops where a list answers next: null', async () => {
    const f = await feed();
    try {
      const ids: number[] = [];
      for await (const t of f.client.each('/transactions')) ids.push(t.id);
      expect(ids).toEqual([30, 20, 10]);
      expect(f.urls).toEqual(['/v1/transactions', '/v1/transactions?after=20']);
    } finally {
      await f.close();
    }
  });
});
