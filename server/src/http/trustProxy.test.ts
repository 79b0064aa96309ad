import express from 'express';
import { call, createTestDatabase, keyFor, seedCompany, startTestApp, type TestDatabase } from '@walletd/test-harness';
import { setTrustProxy } from './trustProxy';

let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t.drop();
});

describe('server.trustProxy', () => {
  it('takes the client address from X-Forwarded-For only past trusted proxies, the same on every repeat (the memo)', async () => {
    const app = await startTestApp(t.db, { server: { trustProxy: ['127.0.0.1'] } });
    try {
      const s = await seedCompany(t.db);
      const key = await keyFor(t.db, s.companyId, { actions: ['wallets:read'], allowIps: ['203.0.113.0/24'] });
      for (let i = 0; i < 3; i++) {
        const direct = await call(app.url, 'GET', '/v1/me', { key: key.key, headers: { 'x-forwarded-for': '203.0.113.9' } });
        expect(direct.status).toBe(200);
        // 198.51.100.7 is not a trusted proxy: it is the client, whatever it forwarded.
        const spoofed = await call(app.url, 'GET', '/v1/me', {
          key: key.key,
          headers: { 'x-forwarded-for': '203.0.113.9, 198.51.100.7' },
        });
        expect(spoofed.status).toBe(403);
        expect(spoofed.body).toMatchObject({ code: 'ip_not_allowed' });
      }
    } finally {
      await app.close();
    }
  });

  it('ignores X-Forwarded-For from a socket that is not a trusted proxy', async () => {
    const app = await startTestApp(t.db, { server: { trustProxy: ['10.0.0.1'] } });
    try {
      const s = await seedCompany(t.db);
      const key = await keyFor(t.db, s.companyId, { actions: ['wallets:read'], allowIps: ['203.0.113.0/24'] });
      for (let i = 0; i < 2; i++) {
        const refused = await call(app.url, 'GET', '/v1/me', { key: key.key, headers: { 'x-forwarded-for': '203.0.113.9' } });
        expect(refused.status).toBe(403);
      }
    } finally {
      await app.close();
    }
  });

  it("answers as Express's own trust function, list, boolean and hop count alike", () => {
    const cases: (boolean | number | string[])[] = [['127.0.0.1', '10.0.0.0/8'], ['loopback'], true, false, 1];
    for (const value of cases) {
      const ours = express();
      setTrustProxy(ours, value);
      const theirs = express();
      theirs.set('trust proxy', value);
      const trust = ours.get('trust proxy fn') as (a: string, i: number) => boolean;
      const expected = theirs.get('trust proxy fn') as (a: string, i: number) => boolean;
      for (const address of ['127.0.0.1', '10.1.2.3', '::1', '203.0.113.9', '127.0.0.1'])
        for (const hop of [0, 1, 2])
          expect([value, address, hop, trust(address, hop)]).toEqual([value, address, hop, expected(address, hop)]);
    }
  });
});
