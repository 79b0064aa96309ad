import { call, createTestDatabase, keyFor, seedCompany, startTestApp, type TestApp, type TestDatabase } from '@walletd/test-harness';
import { generateSealingKeyPair, isValidMnemonic, openSealed } from '@walletd/core';
import { validator } from '@walletd/schemas';
import { setEncryptionKey } from '../index';

let t: TestDatabase;
let app: TestApp;

beforeAll(async () => {
  t = await createTestDatabase();
  app = await startTestApp(t.db);
});
afterAll(async () => {
  await app.close();
  await t.drop();
});

const mkWallet = async (key: string, body: Record<string, unknown> = { name: 'hot', chain: 'ethereum', network: 'sepolia' }) =>
  call(app.url, 'POST', '/v1/wallets', { key, body });

describe('wallets', () => {
  it('creates, lists, reads, renames and deletes, each response matching its schema', async () => {
    const s = await seedCompany(t.db);
    const created = await mkWallet(s.rootKey, { name: 'treasury', chain: 'bitcoin', network: 'mainnet' });
    expect(created.status).toBe(201);
    expect(validator('Wallet')(created.body)).toBe(true);
    expect(created.headers.get('location')).toBe(`/v1/wallets/${created.body.id}`);
    const list = await call(app.url, 'GET', '/v1/wallets', { key: s.rootKey });
    expect(validator('WalletList')(list.body)).toBe(true);
    expect(list.body.wallets.map((w: { id: number }) => w.id)).toEqual([created.body.id]);
    const renamed = await call(app.url, 'PATCH', `/v1/wallets/${created.body.id}`, { key: s.rootKey, body: { name: 'cold' } });
    expect(renamed.body.name).toBe('cold');
    const del = await call(app.url, 'DELETE', `/v1/wallets/${created.body.id}`, { key: s.rootKey });
    expect(del.status).toBe(204);
    expect((await call(app.url, 'GET', `/v1/wallets/${created.body.id}`, { key: s.rootKey })).status).toBe(404);
    // The secret stays at rest (archived, not destroyed).
    const row = await t.db('wallets').where({ id: created.body.id }).first();
    expect(row.deleted_at).not.toBeNull();
    expect(row.secret_envelope.v).toBe(1);
  });

  it('never shows a wallet outside the key scope (404) nor acts without the action (403)', async () => {
    const s = await seedCompany(t.db);
    const a = (await mkWallet(s.rootKey)).body.id as number;
    const b = (await mkWallet(s.rootKey)).body.id as number;
    const scoped = await keyFor(t.db, s.companyId, { actions: ['wallets:read'], walletIds: [a] });
    expect((await call(app.url, 'GET', '/v1/wallets', { key: scoped.key })).body.wallets.map((w: { id: number }) => w.id)).toEqual([a]);
    expect((await call(app.url, 'GET', `/v1/wallets/${a}`, { key: scoped.key })).status).toBe(200);
    const hidden = await call(app.url, 'GET', `/v1/wallets/${b}`, { key: scoped.key });
    expect(hidden.status).toBe(404);
    const missing = await call(app.url, 'GET', '/v1/wallets/999999', { key: scoped.key });
    expect(hidden.body).toEqual(missing.body);
    const noAction = await call(app.url, 'PATCH', `/v1/wallets/${a}`, { key: scoped.key, body: { name: 'x' } });
    expect(noAction.status).toBe(403);
    expect(noAction.body).toMatchObject({ code: 'forbidden', message: 'This API key lacks the "wallets:update" action' });
    expect((await call(app.url, 'PATCH', `/v1/wallets/${b}`, { key: scoped.key, body: { name: 'x' } })).status).toBe(404);
    expect((await mkWallet(scoped.key)).status).toBe(403);
    // Another company's wallet is invisible even to an all-wallets key.
    const other = await seedCompany(t.db, 'paid', 'Other');
    expect((await call(app.url, 'GET', `/v1/wallets/${a}`, { key: other.rootKey })).status).toBe(404);
  });

  it('enforces plans: networks and the free-tier hard cap', async () => {
    const s = await seedCompany(t.db, 'free');
    const main = await mkWallet(s.rootKey, { name: 'm', chain: 'ethereum', network: 'mainnet' });
    expect(main.status).toBe(403);
    expect(main.body.code).toBe('plan_forbidden');
    for (let i = 0; i < 5; i++) expect((await mkWallet(s.rootKey)).status).toBe(201);
    const sixth = await mkWallet(s.rootKey);
    expect(sixth.status).toBe(403);
    expect(sixth.body).toMatchObject({ code: 'plan_cap_reached', message: 'the free plan allows at most 5 wallets' });
  });

  it('validates input with clear 400s', async () => {
    const s = await seedCompany(t.db);
    const badNet = await mkWallet(s.rootKey, { name: 'x', chain: 'ethereum', network: 'goerli' });
    expect(badNet.status).toBe(400);
    expect(badNet.body.message).toBe('unknown network "goerli" for ethereum; known: mainnet, sepolia, devnet');
    // A chain no loaded plugin serves: 422, naming the chains this walletd serves (from the plugins).
    const badChain = await mkWallet(s.rootKey, { name: 'x', chain: 'eth', network: 'mainnet' });
    expect(badChain.status).toBe(422);
    expect(badChain.body).toMatchObject({ code: 'chain_not_supported' });
    expect(badChain.body.message).toMatch(/^no chain plugin this walletd loads serves "eth"; it serves ethereum, bsc, .*ton/);
    const extra = await mkWallet(s.rootKey, { name: 'x', chain: 'ethereum', network: 'sepolia', color: 'red' });
    expect(extra.body.message).toBe('body has an unknown field "color"');
    const empty = await call(app.url, 'PATCH', '/v1/wallets/1', { key: s.rootKey, body: {} });
    expect(empty.status).toBe(400);
    expect((await call(app.url, 'GET', '/v1/wallets/abc', { key: s.rootKey })).body.message).toBe('wallet id must be a positive integer');
  });

  it('returns the secret sealed to the company key, audited, only with the right actions', async () => {
    const s = await seedCompany(t.db);
    const w = (await mkWallet(s.rootKey)).body.id as number;
    const noKey = await call(app.url, 'GET', `/v1/wallets/${w}/secret`, { key: s.rootKey });
    expect(noKey.status).toBe(409);

    const pair = generateSealingKeyPair();
    await setEncryptionKey(t.db, s.companyId, pair.publicKeyPem);
    const reader = await keyFor(t.db, s.companyId, { actions: ['wallets:read'] });
    expect((await call(app.url, 'GET', `/v1/wallets/${w}/secret`, { key: reader.key })).status).toBe(403);
    const gen = await keyFor(t.db, s.companyId, { actions: ['wallets:generate_address'], walletIds: [w] });
    const r = await call(app.url, 'GET', `/v1/wallets/${w}/secret`, { key: gen.key });
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(validator('WalletSecretResponse')(r.body)).toBe(true);
    const mnemonic = openSealed(pair.privateKeyPem, r.body.sealedSecret, `wallet:${w}`).toString();
    expect(mnemonic.split(' ')).toHaveLength(24);
    expect(isValidMnemonic(mnemonic)).toBe(true);
    // The same secret the server holds at rest.
    const row = await t.db('wallets').where({ id: w }).first();
    expect(app.masterKey.open(row.secret_envelope, `wallet:${w}`).toString()).toBe(mnemonic);
    const audits = await t
      .db('audit_log')
      .where({ company_id: s.companyId, target_id: String(w) })
      .orderBy('id')
      .pluck('action');
    expect(audits).toEqual(['wallet.secret.refused', 'wallet.secret.read']);
    // Nothing secret reached the logs.
    const logs = app.logs.join('');
    for (const secret of [mnemonic, r.body.sealedSecret, s.rootKey, gen.key, reader.key]) expect(logs).not.toContain(secret);
    expect(logs).toContain('/secret');
  });
});
