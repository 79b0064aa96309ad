import fc from 'fast-check';
import { buildOpenApi, validator } from '@walletd/schemas';
import {
  arbitraryFromSchema,
  call,
  canonicalFromSchema,
  singleLeafMutations,
  createTestDatabase,
  recordDeposit,
  seedCompany,
  shippedPlugins,
  startTestApp,
  type TestApp,
  type TestDatabase,
} from '@walletd/test-harness';
import { reasonPhrase } from '@walletd/core';

/**
 * Property: whatever a caller sends to any operation of the OpenAPI document, the answer is
 * never a 5xx, and every 4xx carries the spec's error body. Requests are shaped by the document
 * (path and query parameters, request bodies) and mixed with inputs that once caused 500s.
 * Bounded: RUNS requests per operation.
 */
const RUNS = 15;

type Param = { name: string; in: 'path' | 'query'; schema: Record<string, unknown> };
type Op = { parameters?: Param[]; requestBody?: { content: { 'application/json': { schema: Record<string, unknown> } } } };
type Doc = {
  paths: Record<string, Record<string, Op> & { servers?: { url: string }[] }>;
  components: { schemas: Record<string, Record<string, unknown>> };
};

let t: TestDatabase;
let app: TestApp;
let key: string;
const ids: number[] = [];

beforeAll(async () => {
  t = await createTestDatabase();
  // No chains configured: a valid withdrawal stops at 422 (not followed) instead of reaching a
  // node, so any 5xx here is the API's own.
  app = await startTestApp(t.db, {
    rateLimit: { perIpPerMinute: 1_000_000, writesPerKeyPerMinute: 1_000_000 },
    webhooks: { allowCidrs: ['127.0.0.0/8'] },
  });
  const s = await seedCompany(t.db);
  key = s.rootKey;
  // Real resources, so that path ids reach past "not found".
  const wallet = await call(app.url, 'POST', '/v1/wallets', { key, body: { name: 'w', chain: 'ethereum', network: 'sepolia' } });
  await call(app.url, 'POST', `/v1/wallets/${wallet.body.id}/addresses`, { key, body: {} });
  const hook = await call(app.url, 'POST', '/v1/webhooks', {
    key,
    body: { type: 'api', config: { url: 'http://127.0.0.1:9/h' }, events: ['*'] },
  });
  await recordDeposit(t.db, s.companyId, wallet.body.id);
  const delivery = await t.db('webhook_deliveries').first('id');
  const request = await call(app.url, 'POST', '/v1/withdrawal-requests', {
    key,
    body: { walletId: wallet.body.id, asset: 'ETH', toAddress: '0x1111111111111111111111111111111111111111', amount: '1' },
  });
  ids.push(wallet.body.id, hook.body.id, Number(delivery.id), request.body.id);
});
afterAll(async () => {
  await app.close();
  await t.drop();
});

/** Already percent-encoded path segments: real ids, boundaries and junk. */
const pathValue = () =>
  fc.oneof(
    fc.constantFrom(...ids.map(String)),
    fc.constantFrom('0', '-1', '1.5', 'abc', '2147483648', '99999999999999999999', '%00', '%E0%A4%A', '%F0%9F%92%A9', '1e3'),
    fc.integer({ min: 1, max: 50 }).map(String),
  );

/** Values that pass validation, so a nasty one beside them reaches the services and the database. */
const hints = () => ({
  chain: ['ethereum'],
  network: ['sepolia'],
  asset: ['ETH', 'ethereum:sepolia:eth'],
  toAddress: ['0x1111111111111111111111111111111111111111'],
  fromAddress: ['0x1111111111111111111111111111111111111111'],
  amount: ['1', '0.5'],
  walletId: [ids[0]],
  walletIds: [[ids[0]], []],
  type: ['api'],
  url: ['http://127.0.0.1:9/h'],
  events: [['*'], ['deposit.confirmed']],
  since: ['2026-01-01T00:00:00Z'],
  name: ['w'],
  idempotencyKey: ['k1', 'k2'],
  label: ['hot'],
  note: ['rent'],
  memo: ['invoice 7'],
});

/** `raw`: body text sent as is (shapes JSON.stringify cannot make: duplicate keys); wins over `body`. */
type Req = { path: string; method: string; query: Record<string, unknown>; body: unknown; raw?: string };

/** Nesting far past the body limit, of objects, arrays or both (10,000 deep once answered 500). */
const deepBody = (depth: number, kinds: string) => {
  let open = '';
  let close = '';
  for (let i = 0; i < depth; i++) {
    const k = kinds[i % kinds.length];
    open += k === '{' ? '{"a":' : '[';
    close = (k === '{' ? '}' : ']') + close;
  }
  return `${open}1${close}`;
};

/** The body's text with its first key named twice (last-wins once took the second amount). */
function duplicateFirstKey(body: unknown): string {
  const text = JSON.stringify(body ?? {});
  const first = body && typeof body === 'object' && !Array.isArray(body) ? Object.entries(body)[0] : undefined;
  if (!first || text === '{}') return '{"a":1,"a":2}';
  return `{${JSON.stringify(first[0])}:"0.0001",${text.slice(1)}`;
}

/** Random shape attacks for any operation that can carry a body. */
const shapeAttack = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.tuple(fc.integer({ min: 33, max: 12_000 }), fc.constantFrom('{', '[', '{[', '[[{')).map(([d, k]) => deepBody(d, k)),
    fc.dictionary(fc.constantFrom('amount', 'name', 'url', 'a'), fc.string({ maxLength: 4 }), { minKeys: 1 }).map(duplicateFirstKey),
  );

function requestFor(path: string, method: string, op: Op, doc: Doc): fc.Arbitrary<Req> {
  const params = op.parameters ?? [];
  const pathParams = params.filter((p) => p.in === 'path');
  const query = params.filter((p) => p.in === 'query');
  const components = doc.components.schemas;
  return fc.record({
    path: fc.tuple(...pathParams.map(() => pathValue())).map((values) => {
      let p = path;
      pathParams.forEach((param, i) => {
        p = p.replace(`{${param.name}}`, values[i] as string);
      });
      return p;
    }),
    query: fc.record(Object.fromEntries(query.map((q) => [q.name, arbitraryFromSchema(q.schema, components, hints(), q.name)])), {
      requiredKeys: [],
    }),
    body: op.requestBody
      ? arbitraryFromSchema(op.requestBody.content['application/json'].schema, components, hints())
      : // fetch sends no body with GET; other methods without a schema get an empty or a stray one.
        method === 'get'
        ? fc.constant(undefined)
        : fc.constantFrom<unknown>(undefined, {}, 'x', { a: '\u0000' }),
    method: fc.constant(method.toUpperCase()),
    raw: method === 'get' ? fc.constant(undefined) : fc.option(shapeAttack(), { nil: undefined, freq: 4 }),
  });
}

/**
 * Besides the random runs, always: a valid request with each body leaf and each query
 * parameter in turn set to a value that once made a 500 (NUL, a lone surrogate, an amount no
 * chain holds, a year PostgreSQL does not have).
 */
const UNSTORABLE = ['a\u0000b', 'x\udc00y', `1${'0'.repeat(80)}`, '0000-01-01T00:00:00Z'];

function regressions(path: string, method: string, op: Op, doc: Doc): [Req][] {
  const params = op.parameters ?? [];
  const components = doc.components.schemas;
  let concrete = path;
  for (const p of params.filter((x) => x.in === 'path'))
    concrete = concrete.replace(`{${p.name}}`, String(ids[p.name === 'deliveryId' ? 2 : 0]));
  const base = { path: concrete, method: method.toUpperCase(), query: {} as Record<string, unknown>, body: undefined as unknown };
  const out: [Req][] = [];
  let body: unknown;
  if (op.requestBody) {
    body = canonicalFromSchema(op.requestBody.content['application/json'].schema, components, hints());
    out.push([{ ...base, body }]);
    for (const mutated of singleLeafMutations(body, UNSTORABLE)) out.push([{ ...base, body: mutated }]);
  }
  // Every operation that can carry a body: 10,000 deep (20 KB) and a key named twice.
  if (method !== 'get')
    for (const raw of [deepBody(10_000, '{'), deepBody(10_000, '['), deepBody(10_000, '[{'), duplicateFirstKey(body)])
      out.push([{ ...base, raw }]);
  for (const q of params.filter((x) => x.in === 'query')) for (const v of UNSTORABLE) out.push([{ ...base, query: { [q.name]: v } }]);
  return out;
}

function queryString(query: Record<string, unknown>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) q.append(k, typeof v === 'string' ? v : JSON.stringify(v));
  const text = q.toString();
  return text ? `?${text}` : '';
}

const doc = buildOpenApi('fuzz', shippedPlugins().chainTable().chains()) as unknown as Doc;
// Deletes last: they remove the resources the other operations read.
const operations = Object.entries(doc.paths)
  .flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => ['get', 'post', 'patch', 'delete'].includes(method))
      .map(([method, op]) => ({ path, method, op: op as Op, base: item.servers?.[0]?.url === '/' ? '' : '/v1' })),
  )
  .sort((a, b) => Number(a.method === 'delete') - Number(b.method === 'delete'));

describe('every operation of the OpenAPI document, fuzzed', () => {
  it('covers every operation', () => {
    expect(operations.length).toBeGreaterThanOrEqual(34);
  });

  it.each(operations.map((o) => [`${o.method.toUpperCase()} ${o.path}`, o]))(
    '%s: no 5xx; every 4xx in the error shape',
    async (_name, o) => {
      await fc.assert(
        fc.asyncProperty(requestFor(o.path, o.method, o.op, doc), async (r) => {
          const res = await call(app.url, r.method, `${o.base}${r.path}${queryString(r.query as Record<string, unknown>)}`, {
            key,
            ...(r.raw !== undefined
              ? { rawBody: r.raw, headers: { 'content-type': 'application/json' } }
              : r.body === undefined
                ? {}
                : { body: r.body }),
          });
          // A shape attack is refused as such, never taken (or answered as something else).
          if (r.raw !== undefined && res.status !== 400)
            throw new Error(`shape attack not refused: ${r.method} ${o.base}${r.path} -> ${res.status} ${res.text.slice(0, 300)}`);
          const context = `${r.method} ${o.base}${r.path} -> ${res.status} ${res.text.slice(0, 300)}`;
          if (res.status >= 500) throw new Error(`server error: ${context}`);
          if (res.status >= 400) {
            const body = res.body as { statusCode: number; error: string };
            if (!validator('ErrorBody')(body)) throw new Error(`not the error body: ${context}`);
            if (body.statusCode !== res.status || body.error !== reasonPhrase(res.status)) throw new Error(`status mismatch: ${context}`);
          }
        }),
        { numRuns: RUNS, examples: regressions(o.path, o.method, o.op, doc) },
      );
    },
  );
});
