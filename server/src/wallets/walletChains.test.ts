import { call, createTestDatabase, seedCompany, startTestApp, type TestApp, type TestDatabase } from '@walletd/test-harness';
import { loadPlugins } from '../platform/plugins';

/**
 * Issue 31 item 2: the chains are the ones the loaded plugins declare. A walletd that loads one
 * plugin serves that plugin's chains only: the OpenAPI document lists them where a request names a
 * chain, a wallet on another chain is 422 `chain_not_supported` naming the package to add, and the
 * networks are the plugin's own.
 */
let t: TestDatabase;
let app: TestApp;

beforeAll(async () => {
  t = await createTestDatabase();
  app = await startTestApp(t.db, {}, undefined, loadPlugins(['@walletd/plugin-tron', '@walletd/plugin-solana']));
});
afterAll(async () => {
  await app.close();
  await t.drop();
});

type Schema = { properties: Record<string, { enum?: string[]; pattern?: string }> };

test('the OpenAPI document lists the loaded chains in requests; responses keep the name form', async () => {
  const doc = (await call(app.url, 'GET', '/v1/openapi.json')).body as { components: { schemas: Record<string, Schema> } };
  expect(doc.components.schemas.WalletCreateRequest?.properties.chain?.enum).toEqual(['tron', 'solana']);
  expect(doc.components.schemas.Wallet?.properties.chain?.enum).toBeUndefined();
  expect(doc.components.schemas.Wallet?.properties.chain?.pattern).toBeDefined();
});

test('a wallet on a chain no loaded plugin serves is 422 chain_not_supported, naming the loaded chains and the package', async () => {
  const s = await seedCompany(t.db);
  const eth = await call(app.url, 'POST', '/v1/wallets', { key: s.rootKey, body: { name: 'x', chain: 'ethereum', network: 'mainnet' } });
  expect(eth.status).toBe(422);
  expect(eth.body).toMatchObject({
    statusCode: 422,
    error: 'Unprocessable Entity',
    code: 'chain_not_supported',
    message:
      'no chain plugin this walletd loads serves "ethereum"; it serves tron, solana; ethereum is served by @walletd/plugin-evm: add it to "plugins" in the config (docs/operate/configuration.md)',
  });
  const unknown = await call(app.url, 'POST', '/v1/wallets', {
    key: s.rootKey,
    body: { name: 'x', chain: 'litecoin', network: 'mainnet' },
  });
  expect(unknown.status).toBe(422);
  expect(unknown.body.message).toBe('no chain plugin this walletd loads serves "litecoin"; it serves tron, solana');
  const badNet = await call(app.url, 'POST', '/v1/wallets', { key: s.rootKey, body: { name: 'x', chain: 'tron', network: 'sepolia' } });
  expect(badNet.status).toBe(400);
  expect(badNet.body.message).toBe('unknown network "sepolia" for tron; known: mainnet, nile, shasta, devnet');
  const ok = await call(app.url, 'POST', '/v1/wallets', { key: s.rootKey, body: { name: 'x', chain: 'solana', network: 'devnet' } });
  expect(ok.status).toBe(201);
});
