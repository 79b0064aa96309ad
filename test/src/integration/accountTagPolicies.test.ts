import { randomBytes } from 'node:crypto';
import { type ChainSettings, MasterKey, registerPlugins } from '@walletd/core';
import { createXrpPlugin } from '@walletd/plugin-xrp';
import { addPolicy, setPolicyEnabled } from '@walletd/server';
import { type Seeded, type TestApp, type TestDatabase, call, createTestDatabase, seedCompany, startTestApp } from '@walletd/test-harness';
import { classicAddressToXAddress } from 'xrpl';

/**
 * Spending policies on an account-tag chain (XRP): a tag routes a payment inside the account
 * holder, it does not change who is paid. A deny list naming the account refused a payment to the
 * bare account but let `r…:5`, its X-address and `destinationTag: 5` through (their match keys
 * carry the tag), paying the denied account. The policies are decided before any node call, so
 * the node here is unreachable: a refusal is the policy's, anything else would reach it (502).
 */
describe('destination policies on XRP compare the account, with or without a tag', () => {
  let t: TestDatabase;
  let app: TestApp;
  let s: Seeded;
  let wallet: number;
  const plugin = createXrpPlugin();
  // Public, well-known addresses (the XRPL documentation's examples), on testnet.
  const denied = 'rPT1Sjq2YGrBMTttX4GZHjKu9dyfzbpAYe';
  const payee = 'rf1BiGeXwwQoi8Z2ueFYTEXSwuJYfV2Jpn';

  let n = 0;
  const prepare = (body: Record<string, unknown>) =>
    call(app.url, 'POST', `/v1/wallets/${wallet}/withdrawals`, {
      key: s.rootKey,
      body: { asset: 'XRP', amount: '1', idempotencyKey: `k${++n}`, ...body },
    });

  beforeAll(async () => {
    t = await createTestDatabase();
    const chains: ChainSettings[] = [{ chain: 'xrp', network: 'testnet', rpcUrl: 'ws://127.0.0.1:9' }];
    app = await startTestApp(
      t.db,
      { chains, rateLimit: { writesPerKeyPerMinute: 1000 } },
      new MasterKey(randomBytes(32)),
      registerPlugins([plugin]),
    );
    s = await seedCompany(t.db);
    wallet = (await call(app.url, 'POST', '/v1/wallets', { key: s.rootKey, body: { name: 'x', chain: 'xrp', network: 'testnet' } })).body
      .id;
  });
  afterAll(async () => {
    await app.close();
    await t.drop();
  });

  const policyFor = (kind: 'deny_destinations' | 'allow_destinations', addresses: string[]) =>
    addPolicy(t.db, {
      companyId: s.companyId,
      name: kind,
      kind,
      walletIds: null,
      assetKey: null,
      addresses,
      matchKeys: addresses.map((a) => plugin.matchKey('xrp', 'testnet', a)),
    });

  it('a denied account is refused with any tag, in any spelling; a denied tag only with that tag', async () => {
    const deny = await policyFor('deny_destinations', [denied]);
    for (const body of [
      { toAddress: denied },
      { toAddress: `${denied}:5` },
      { toAddress: classicAddressToXAddress(denied, 5, true) },
      { toAddress: denied, destinationTag: 5 },
    ]) {
      const res = await prepare(body);
      expect([res.status, res.body.code, body]).toEqual([403, 'policy_denied', body]);
    }
    await setPolicyEnabled(t.db, deny.id, false);

    await policyFor('deny_destinations', [`${payee}:7`]);
    for (const body of [{ toAddress: `${payee}:7` }, { toAddress: payee, destinationTag: 7 }]) {
      const res = await prepare(body);
      expect([res.status, res.body.code, body]).toEqual([403, 'policy_denied', body]);
    }
    // Another tag of that account is not denied: it goes on to the (unreachable) node.
    const other = await prepare({ toAddress: payee, destinationTag: 8 });
    expect([other.status, other.body.code]).toEqual([502, 'node_error']);
  });
});
