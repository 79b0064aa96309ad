import { randomBytes } from 'node:crypto';
import { MasterKey, createLogger } from '@walletd/core';
import {
  call,
  createTestDatabase,
  recordDeposit,
  seedCompany,
  startReceiver,
  startTestApp,
  testConfig,
  type Seeded,
  type TestApp,
  type TestDatabase,
  type TestReceiver,
} from '@walletd/test-harness';
import { loadPlugins } from '../../platform/plugins';
import { createDispatcher, type Dispatcher } from '../dispatcher/dispatcher';

// A receiver that echoes what it was configured with gets it back in the delivery record
// (`GET …/deliveries/:id`) only as `[redacted]`, in whatever encoding it echoed, for the current
// secret and every one the webhook had before (issue 28, section 4).

let t: TestDatabase;
let app: TestApp;
let rx: TestReceiver;
let dispatcher: Dispatcher;
const masterKey = new MasterKey(randomBytes(32));

beforeAll(async () => {
  t = await createTestDatabase();
  app = await startTestApp(t.db, { webhooks: { allowCidrs: ['127.0.0.0/8'] } }, masterKey);
  rx = await startReceiver();
  const config = testConfig({ webhooks: { allowCidrs: ['127.0.0.0/8'], telegramApiBase: rx.url } });
  dispatcher = createDispatcher({ config, logger: createLogger({ level: 'silent' }), db: t.db, masterKey, plugins: loadPlugins() });
});
afterAll(async () => {
  await dispatcher.stop();
  await rx.close();
  await app.close();
  await t.drop();
});

/** A company, a wallet and a webhook of `body` (an api webhook to the receiver by default). */
async function setup(body: Record<string, unknown> = {}): Promise<{ s: Seeded; walletId: number; hookId: number; secret: string }> {
  const s = await seedCompany(t.db);
  const wallet = await call(app.url, 'POST', '/v1/wallets', { key: s.rootKey, body: { name: 'w', chain: 'ethereum', network: 'sepolia' } });
  const created = await call(app.url, 'POST', '/v1/webhooks', {
    key: s.rootKey,
    body: { type: 'api', config: { url: `${rx.url}/hook` }, events: ['*'], ...body },
  });
  expect(created.status).toBe(201);
  return { s, walletId: wallet.body.id, hookId: created.body.id, secret: created.body.signingSecret };
}

/** One event delivered to a receiver answering 400 with `lines`; the stored body, read through the API. */
async function echoed(h: { s: Seeded; walletId: number; hookId: number }, body: string): Promise<string> {
  rx.respond((_r, res) => {
    res.writeHead(400, { 'content-type': 'text/plain' }).end(body);
  });
  await recordDeposit(t.db, h.s.companyId, h.walletId);
  expect(await dispatcher.runOnce()).toBe(1);
  const [d] = (await call(app.url, 'GET', `/v1/webhooks/${h.hookId}/deliveries?limit=1`, { key: h.s.rootKey })).body.deliveries;
  const detail = await call(app.url, 'GET', `/v1/webhooks/${h.hookId}/deliveries/${d.id}`, { key: h.s.rootKey });
  return detail.body.delivery.responseBody as string;
}

/** JSON as encoders that escape everything outside ASCII write it (Python's default), hex in capitals. */
const asciiJson = (v: string) =>
  JSON.stringify(v).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
const html = (v: string) => v.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

beforeEach(() => {
  rx.requests.length = 0;
});

describe('secrets echoed by a receiver are redacted from the delivery record', () => {
  it('a caller-chosen secret with a quote, backslashes, non-ASCII and spaces: JSON, ASCII-only JSON, form, URL and HTML encoded', async () => {
    const secret = 'k3y "quoted" \\back\\ é☃🔑 sp/ace+%';
    const h = await setup({ signingSecret: secret });
    const echoes = {
      json: JSON.stringify(secret),
      ascii: asciiJson(secret),
      slashes: JSON.stringify(secret).replaceAll('/', '\\/'),
      form: new URLSearchParams({ s: secret }).toString(),
      uri: encodeURIComponent(secret),
      lower: encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
      html: html(secret),
    };
    const stored = await echoed(
      h,
      Object.entries(echoes)
        .map(([k, v]) => `${k} ${v}`)
        .join('\n'),
    );
    expect(stored.split('\n')).toEqual([
      'json "[redacted]"',
      'ascii "[redacted]"',
      'slashes "[redacted]"',
      'form s=[redacted]',
      'uri [redacted]',
      'lower [redacted]',
      'html [redacted]',
    ]);
  });

  it('the base64 part of a whsec_ secret alone (raw, URL-encoded, in JSON), its key in base64url, in hex of either case, inside a Basic credential', async () => {
    // Key bytes whose base64 has "+" and "/" (0xfb 0xff 0xbf is "+/+/"): the characters encoders change.
    const key = Buffer.concat([Buffer.from([0xfb, 0xff, 0xbf]), randomBytes(29)]);
    const b64 = key.toString('base64');
    const h = await setup({ signingSecret: `whsec_${b64}` });
    const basic = Buffer.from(`user:whsec_${b64}`).toString('base64');
    const lines = [
      `raw ${b64}`,
      `url ${encodeURIComponent(b64)}`,
      `json ${JSON.stringify({ key: b64 }).replaceAll('/', '\\/')}`,
      `b64url ${key.toString('base64url')}`,
      `hex ${key.toString('hex')}`,
      `HEX ${key.toString('hex').toUpperCase()}`,
      `utf8hex ${Buffer.from(`whsec_${b64}`).toString('hex')}`,
      `basic Basic ${basic}`,
    ];
    const stored = (await echoed(h, lines.join('\n'))).split('\n');
    expect(stored.slice(0, 7)).toEqual([
      'raw [redacted]',
      'url [redacted]',
      'json {"key":"[redacted]"}',
      'b64url [redacted]',
      'hex [redacted]',
      'HEX [redacted]',
      'utf8hex [redacted]',
    ]);
    // Only the characters that also carry "user:" or the padding remain.
    expect(stored[7]).toMatch(/^basic Basic [A-Za-z0-9+/]{1,8}\[redacted\][A-Za-z0-9+/]?=*$/);
  });

  it('the previous signing secrets after rotations, in any encoding', async () => {
    const h = await setup();
    const first = h.secret;
    const rotate = async (body: Record<string, unknown>) =>
      (await call(app.url, 'POST', `/v1/webhooks/${h.hookId}/rotate-secret`, { key: h.s.rootKey, body })).body.signingSecret as string;
    const second = await rotate({ signingSecret: 'second "secret" with spaces' });
    const third = await rotate({});
    const firstKey = Buffer.from(first.slice(6), 'base64');
    const lines = [
      `first ${first}`,
      `first-b64 ${encodeURIComponent(first.slice(6))}`,
      `first-hex ${firstKey.toString('hex')}`,
      `second ${JSON.stringify(second)}`,
      `second-form ${new URLSearchParams({ s: second }).toString()}`,
      `third ${third}`,
    ];
    expect((await echoed(h, lines.join('\n'))).split('\n')).toEqual([
      'first [redacted]',
      'first-b64 [redacted]',
      'first-hex [redacted]',
      'second "[redacted]"',
      'second-form s=[redacted]',
      'third [redacted]',
    ]);
  });

  it('the bot token a PATCH replaced', async () => {
    const oldToken = '123456789:AAE_oldTokenOldTokenOldToken-x9';
    const h = await setup({ type: 'telegram', config: { botToken: oldToken, chatId: 42 } });
    const patched = await call(app.url, 'PATCH', `/v1/webhooks/${h.hookId}`, {
      key: h.s.rootKey,
      body: { config: { botToken: '987654321:BBF_newTokenNewTokenNewToken-y8', chatId: 42 } },
    });
    expect(patched.status).toBe(200);
    expect(await echoed(h, `old ${oldToken} and ${encodeURIComponent(oldToken)}`)).toBe('old [redacted] and [redacted]');
  });

  it('an escaped secret whose encoding the end of the read cuts through (inside one \\uXXXX)', async () => {
    const secret = 'ñÅé☃€üøßñÅé☃€üøß';
    const h = await setup({ signingSecret: secret });
    const escaped = asciiJson(secret).slice(1, -1); // 96 characters
    // The echoes shrink when redacted (96 characters to 10), pulling the end of what is read (3 KB,
    // here 40 characters: six escapes and "\u00", into an escaped secret) inside the 2 KB kept.
    const echoes = `${escaped} `.repeat(15);
    const fill = 'c'.repeat(3072 - echoes.length - 40);
    const stored = await echoed(h, `${echoes}${fill}${escaped}${'d'.repeat(4000)}`);
    expect(stored).toBe(`${'[redacted] '.repeat(15)}${fill}[redacted]`);
  });

  it('reversed, upper- and lower-cased, split across the body, percent-encoded twice, and any other webhook of the company (issue 42 §5)', async () => {
    const h = await setup();
    const other = await call(app.url, 'POST', '/v1/webhooks', {
      key: h.s.rootKey,
      body: { type: 'api', config: { url: `${rx.url}/other` }, events: ['*'], enabled: false },
    });
    expect(other.status).toBe(201);
    const otherSecret = other.body.signingSecret as string;
    const chunks = (v: string) => v.match(/.{1,9}/g) as string[];
    const lines = [
      `rev ${Array.from(h.secret).reverse().join('')}`,
      `up ${h.secret.toUpperCase()}`,
      `low ${h.secret.toLowerCase()}`,
      `split ${chunks(h.secret).join('\r\n  ')} end`,
      `json ${JSON.stringify(chunks(h.secret))}`,
      `twice ${encodeURIComponent(encodeURIComponent(h.secret))}`,
      `other ${otherSecret}`,
      `other-twice ${encodeURIComponent(encodeURIComponent(otherSecret))}`,
    ];
    const stored = await echoed(h, lines.join('\n'));
    expect(stored.split('\n')).toEqual([
      'rev [redacted]',
      'up [redacted]',
      'low [redacted]',
      'split [redacted] end',
      'json ["[redacted]"]',
      'twice [redacted]',
      'other [redacted]',
      'other-twice [redacted]',
    ]);
  });
});
