import { startSolanaSvm } from './solanaSvm';

/** The adapter runs inside walletd serve's playground: a body that is not JSON must not take it down. */
describe('the Solana JSON-RPC adapter', () => {
  it('answers a body that is not JSON with a JSON-RPC parse error and keeps serving', async () => {
    const node = await startSolanaSvm();
    try {
      const bad = await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":1,"method":' });
      expect(await bad.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      const ok = await fetch(node.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'getSlot', params: [] }),
      });
      expect(((await ok.json()) as { id: number }).id).toBe(2);
    } finally {
      await node.close();
    }
  });
});
