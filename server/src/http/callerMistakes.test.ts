import { call, createTestDatabase, seedCompany, startTestApp, type TestApp, type TestDatabase } from '@walletd/test-harness';
import { validator } from '@walletd/schemas';

let t: TestDatabase;
let app: TestApp;
let key: string;
let eth: number;
let btc: number;
let btcAddress: string;

const ETH_TO = '0x1111111111111111111111111111111111111111';

beforeAll(async () => {
  t = await createTestDatabase();
  // A node that is not there: anything reaching it would answer 502 node_error.
  app = await startTestApp(t.db, {
    chains: [
      { chain: 'ethereum', network: 'sepolia', rpcUrl: 'http://127.0.0.1:9' },
      { chain: 'bitcoin', network: 'testnet', rpcUrl: 'http://user:pass@127.0.0.1:9' },
    ],
    webhooks: { allowCidrs: ['127.0.0.0/8'] },
    rateLimit: { writesPerKeyPerMinute: 1000 },
  });
  key = (await seedCompany(t.db)).rootKey;
  const wallet = async (chain: string, network: string) =>
    (await call(app.url, 'POST', '/v1/wallets', { key, body: { name: chain, chain, network } })).body.id as number;
  eth = await wallet('ethereum', 'sepolia');
  btc = await wallet('bitcoin', 'testnet');
  btcAddress = (await call(app.url, 'POST', `/v1/wallets/${btc}/addresses`, { key, body: {} })).body.address;
});
afterAll(async () => {
  await app.close();
  await t.drop();
});

/** A 400 in the spec's error shape with the given code (and message, when given). */
function expect400(r: { status: number; body: unknown }, code: string, message?: string | RegExp) {
  expect({ status: r.status, body: r.body }).toMatchObject({ status: 400, body: { statusCode: 400, error: 'Bad Request', code } });
  expect(validator('ErrorBody')(r.body)).toBe(true);
  if (typeof message === 'string') expect((r.body as { message: string }).message).toBe(message);
  else if (message) expect((r.body as { message: string }).message).toMatch(message);
}

const prepare = (walletId: number, body: Record<string, unknown>) =>
  call(app.url, 'POST', `/v1/wallets/${walletId}/withdrawals`, { key, body: { asset: 'ETH', idempotencyKey: 'k1', ...body } });

describe('amounts a chain cannot hold are the caller’s 400, before any node call', () => {
  const huge = `1${'0'.repeat(80)}`;

  it('refuses an ETH withdrawal above uint256 with invalid_amount', async () => {
    expect400(await prepare(eth, { toAddress: ETH_TO, amount: huge }), 'invalid_amount', /^amount exceeds the largest amount/);
  });

  it('refuses a withdrawal request above uint256 with invalid_amount', async () => {
    const r = await call(app.url, 'POST', '/v1/withdrawal-requests', {
      key,
      body: { walletId: eth, asset: 'ETH', toAddress: ETH_TO, amount: huge },
    });
    expect400(r, 'invalid_amount', /^amount exceeds the largest amount a ethereum transfer of ETH can carry/);
  });

  it('refuses bitcoin outputs above 21 million BTC, one by one and in total', async () => {
    const one = await prepare(btc, { asset: 'BTC', outputs: [{ toAddress: btcAddress, amount: '21000000.00000001' }] });
    expect400(one, 'invalid_amount', 'outputs[0].amount exceeds the largest amount a bitcoin transfer of BTC can carry (21000000)');
    const total = await prepare(btc, {
      asset: 'BTC',
      outputs: [
        { toAddress: btcAddress, amount: '20000000' },
        { toAddress: btcAddress, amount: '2000000' },
      ],
    });
    expect400(total, 'invalid_amount', /^the total of outputs exceeds/);
  });
});

describe('amount and idempotency-key format errors speak the API’s language', () => {
  it.each([['1e5'], ['-1'], ['.5'], ['1,5'], ['']])('amount %p', async (amount) => {
    expect400(
      await prepare(eth, { toAddress: ETH_TO, amount }),
      'invalid_amount',
      'amount must be a positive decimal string such as "0.01"',
    );
  });

  it('a JSON number, and an output amount', async () => {
    expect400(
      await prepare(eth, { toAddress: ETH_TO, amount: 0.5 }),
      'invalid_amount',
      'amount must be a positive decimal string such as "0.01"',
    );
    const out = await prepare(btc, { asset: 'BTC', outputs: [{ toAddress: btcAddress, amount: 'lots' }] });
    expect400(out, 'invalid_amount', 'outputs[0].amount must be a positive decimal string such as "0.01"');
  });

  it('the reserved idempotency prefix', async () => {
    expect400(
      await prepare(eth, { toAddress: ETH_TO, amount: '1', idempotencyKey: 'request:1' }),
      'validation_failed',
      'idempotencyKey must not start with "request:": that prefix is reserved for withdrawals prepared from approved requests',
    );
  });
});

describe('text PostgreSQL cannot store is a 400', () => {
  const bad = { nul: 'a\u0000b', lone: 'a\ud800b' };

  it.each(Object.entries(bad))('%s in a wallet name, an address label, a note and a memo', async (_kind, text) => {
    const message = /contains a NUL character or an unpaired surrogate/;
    expect400(
      await call(app.url, 'POST', '/v1/wallets', { key, body: { name: text, chain: 'ethereum', network: 'sepolia' } }),
      'validation_failed',
      message,
    );
    expect400(await call(app.url, 'PATCH', `/v1/wallets/${eth}`, { key, body: { name: text } }), 'validation_failed', message);
    expect400(await call(app.url, 'POST', `/v1/wallets/${eth}/addresses`, { key, body: { label: text } }), 'validation_failed', message);
    const request = { walletId: eth, asset: 'ETH', toAddress: ETH_TO, amount: '1', note: text };
    expect400(await call(app.url, 'POST', '/v1/withdrawal-requests', { key, body: request }), 'validation_failed', message);
    expect400(await prepare(eth, { toAddress: ETH_TO, amount: '1', memo: text }), 'validation_failed', message);
  });

  it('a lone surrogate escaped in the JSON text, and NUL in a query', async () => {
    const raw = '{"name":"x\\udc00","chain":"ethereum","network":"sepolia"}';
    const r = await call(app.url, 'POST', '/v1/wallets', { key, rawBody: raw, headers: { 'content-type': 'application/json' } });
    expect400(
      r,
      'validation_failed',
      'body.name contains a NUL character or an unpaired surrogate; text must be valid Unicode without U+0000',
    );
    const q = await call(app.url, 'GET', `/v1/wallets/${eth}/withdrawals?status=%00`, { key });
    expect400(
      q,
      'validation_failed',
      'query.status contains a NUL character or an unpaired surrogate; text must be valid Unicode without U+0000',
    );
    expect400(
      await call(app.url, 'GET', `/v1/wallets/${eth}/withdrawals?status=nope`, { key }),
      'validation_failed',
      /^status must be one of prepared/,
    );
    expect400(await call(app.url, 'GET', '/v1/transactions?search=%00', { key }), 'validation_failed');
  });
});

describe('date-times PostgreSQL cannot store are a 400; offsets it cannot parse are normalised', () => {
  const replay = async (body: Record<string, unknown>) => {
    const hook = await call(app.url, 'POST', '/v1/webhooks', {
      key,
      body: { type: 'api', config: { url: 'http://127.0.0.1:9/h' }, events: ['*'] },
    });
    return call(app.url, 'POST', `/v1/webhooks/${hook.body.id}/replay`, { key, body });
  };

  it.each([['0000-01-01T00:00:00Z'], ['9999-12-31T23:59:59-01:00']])('since or until %p', async (time) => {
    expect400(await replay({ since: time }), 'validation_failed', /^since must be a date-time between the years 0001 and 9999/);
    expect400(await replay({ since: '2026-01-01T00:00:00Z', until: time }), 'validation_failed', /^until must be a date-time/);
  });

  it.each([['2026-01-01T00:00:00+23:59'], ['2026-01-01T00:00:00-16:00']])('an offset beyond ±15:59, %p', async (since) => {
    const r = await replay({ since });
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ queued: 0, hasMore: false, next: null });
  });
});
