import { call, createTestDatabase, seedCompany, startTestApp, type TestApp, type TestDatabase } from '@walletd/test-harness';
import { validator } from '@walletd/schemas';
import { jsonShapeProblem, MAX_BODY_DEPTH } from './jsonShape';

let t: TestDatabase;
let app: TestApp;
let key: string;
let eth: number;

const ETH_TO = '0x1111111111111111111111111111111111111111';

beforeAll(async () => {
  t = await createTestDatabase();
  // A node that is not there: a body that got past the checks would answer 502, not 400.
  app = await startTestApp(t.db, {
    chains: [{ chain: 'ethereum', network: 'sepolia', rpcUrl: 'http://127.0.0.1:9' }],
    rateLimit: { writesPerKeyPerMinute: 1000 },
  });
  key = (await seedCompany(t.db)).rootKey;
  eth = (await call(app.url, 'POST', '/v1/wallets', { key, body: { name: 'e', chain: 'ethereum', network: 'sepolia' } })).body.id;
});
afterAll(async () => {
  await app.close();
  await t.drop();
});

const send = (method: string, path: string, raw: string) =>
  call(app.url, method, path, { key, rawBody: raw, headers: { 'content-type': 'application/json' } });

function expect400(r: { status: number; body: unknown }, code: string, message: string | RegExp) {
  expect({ status: r.status, body: r.body }).toMatchObject({ status: 400, body: { statusCode: 400, error: 'Bad Request', code } });
  expect(validator('ErrorBody')(r.body)).toBe(true);
  expect((r.body as { message: string }).message).toMatch(message);
}

describe('bodies nested deeper than the limit are a 400, not a stack overflow', () => {
  // 10,000 levels (20 KB) once answered 500: RangeError in the text-hygiene walk.
  const deep = (n: number, inner = '1') => `${'{"a":'.repeat(n)}${inner}${'}'.repeat(n)}`;

  it.each([
    ['POST', () => `/v1/wallets/${eth}/withdrawals`],
    ['POST', () => '/v1/wallets'],
    ['PATCH', () => `/v1/wallets/${eth}`],
    ['POST', () => '/v1/webhooks'],
  ])('%s %s', async (method, path) => {
    const depth = /^Request body nests objects and arrays deeper than 32 levels$/;
    expect400(await send(method, path(), deep(10_000)), 'bad_request', depth);
    expect400(await send(method, path(), `${'['.repeat(10_000)}${']'.repeat(10_000)}`), 'bad_request', depth);
    expect400(await send(method, path(), `{"name":${deep(MAX_BODY_DEPTH)}}`), 'bad_request', depth);
  });

  it('the limit itself is accepted (and reaches validation)', async () => {
    const r = await send('POST', '/v1/wallets', `{"name":${deep(MAX_BODY_DEPTH - 1, '"x"')}}`);
    expect400(r, 'validation_failed', /name/);
  });
});

describe('a key named twice in one object is a 400, never last-wins', () => {
  it('two amounts in a withdrawal (once prepared the second)', async () => {
    const raw = `{"asset":"ETH","toAddress":"${ETH_TO}","amount":"0.0001","amount":"5","idempotencyKey":"dup-1"}`;
    expect400(
      await send('POST', `/v1/wallets/${eth}/withdrawals`, raw),
      'malformed_json',
      'Request body repeats the key "amount" in body; each key may appear once in an object',
    );
    expect((await call(app.url, 'GET', `/v1/wallets/${eth}/withdrawals`, { key })).body.withdrawals).toEqual([]);
  });

  it('in a nested object, spelled with an escape, on every kind of body', async () => {
    const outputs = `{"asset":"ETH","outputs":[{"toAddress":"${ETH_TO}","amount":"1"},{"toAddress":"${ETH_TO}","amount":"1","\\u0061mount":"2"}],"idempotencyKey":"dup-2"}`;
    expect400(
      await send('POST', `/v1/wallets/${eth}/withdrawals`, outputs),
      'malformed_json',
      'Request body repeats the key "amount" in body.outputs[1]; each key may appear once in an object',
    );
    expect400(await send('PATCH', `/v1/wallets/${eth}`, '{"name":"a","name":"b"}'), 'malformed_json', /"name"/);
    const hook = '{"type":"api","config":{"url":"http://127.0.0.1:9/h","url":"http://10.0.0.1/"},"events":["*"]}';
    expect400(await send('POST', '/v1/webhooks', hook), 'malformed_json', /repeats the key "url" in body\.config/);
  });

  it('the same key in sibling objects, and key-like text inside strings, are fine', async () => {
    expect(jsonShapeProblem('{"a":{"x":1},"b":{"x":1},"c":[{"x":1},{"x":2}]}')).toBeNull();
    expect(jsonShapeProblem('{"a":"\\"a\\":1,","b":"{[{["}')).toBeNull();
    expect(jsonShapeProblem('{"a\\\\":1,"a":2}')).toBeNull();
    const r = await send('POST', '/v1/wallets', '{"name":"w","chain":"ethereum","network":"sepolia","x":"\\"name\\":"}');
    expect400(r, 'validation_failed', /x/);
  });

  it('a syntax error is still malformed JSON first', async () => {
    expect400(await send('PATCH', `/v1/wallets/${eth}`, '{"name":"a","name":'), 'malformed_json', 'Request body is not valid JSON');
  });
});
