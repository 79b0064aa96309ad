import {
  type ConsoleServer,
  type Seeded,
  type TestDatabase,
  createTestDatabase,
  onboardMember,
  seedCompany,
  startConsole,
} from '@walletd/test-harness';

type Member = Awaited<ReturnType<typeof onboardMember>>;

/** The console's policies API: owners and admins only, changes with a step-up, every mistake named by field, audited. */
describe('console policies API', () => {
  let t: TestDatabase;
  let con: ConsoleServer;
  let s: Seeded;
  let admin: Member;
  let developer: Member;
  let walletId: number;
  const usdc = '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238';

  beforeAll(async () => {
    t = await createTestDatabase();
    // A followed chain with a token, so symbols resolve as in the API (no node is contacted).
    con = await startConsole(t.db, {
      chains: [
        { chain: 'ethereum', network: 'sepolia', rpcUrl: 'http://127.0.0.1:9', tokens: [{ contract: usdc, symbol: 'USDC', decimals: 6 }] },
      ],
    });
    s = await seedCompany(t.db);
    admin = await onboardMember(con, t.db, { companyId: s.companyId, email: 'ada@acme.test', role: 'admin' });
    developer = await onboardMember(con, t.db, { companyId: s.companyId, email: 'dev@acme.test', role: 'developer' });
    [{ id: walletId }] = await t
      .db('wallets')
      .insert({ company_id: s.companyId, name: 'treasury', chain: 'ethereum', network: 'sepolia', secret_envelope: {} })
      .returning('id');
  });
  afterAll(async () => {
    await con.close();
    await t.drop();
  });

  const twoApprovals = () => ({
    name: 'two sign-offs',
    kind: 'approval_above',
    asset: 'ethereum:sepolia:eth',
    threshold: '1',
    approvals: 2,
  });
  /** Signed in long enough ago that the sign-in code no longer counts as a step-up. */
  const stale = () => {
    con.clock.now += 6 * 60_000;
  };
  const stepUp = async (m: Member) =>
    expect((await m.b.call('POST', '/console/api/step-up', { body: { code: m.code() } })).status).toBe(200);
  const create = async (body: unknown) => {
    await stepUp(admin);
    return admin.b.call('POST', '/console/api/policies', { body });
  };

  it('refuses a developer (403 role_insufficient) to read or change policies, whatever its step-up', async () => {
    const list = await developer.b.call('GET', '/console/api/policies');
    expect([list.status, list.body.code]).toEqual([403, 'role_insufficient']);
    await stepUp(developer);
    const add = await developer.b.call('POST', '/console/api/policies', { body: twoApprovals() });
    expect([add.status, add.body.code, add.body.message]).toEqual([
      403,
      'role_insufficient',
      'Your role (developer) may not change spending policies; owners and admins may',
    ]);
    expect(await t.db('spending_policies').count({ n: '*' }).first()).toEqual({ n: 0 });
  });

  it('asks an admin for a step-up, then creates, edits, disables and enables a policy, each in words and audited', async () => {
    stale();
    const refused = await admin.b.call('POST', '/console/api/policies', { body: { ...twoApprovals(), walletIds: [walletId] } });
    expect([refused.status, refused.body.code]).toEqual([403, 'step_up_required']);

    const created = await create({ ...twoApprovals(), walletIds: [walletId] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      kind: 'approval_above',
      enabled: true,
      threshold: '1',
      approvals: 2,
      walletIds: [walletId],
      asset: { key: 'ethereum:sepolia:eth', symbol: 'ETH', decimals: 18 },
      sentence: `Withdrawals of 1 ETH or more from wallet "treasury" (#${walletId}) need 2 approvals`,
    });
    const id = created.body.id as number;
    expect(await t.db('spending_policies').where({ id }).first('params')).toEqual({
      params: { threshold: '1000000000000000000', approvals: 2 },
    });

    const edited = await admin.b.call('PUT', `/console/api/policies/${id}`, {
      body: { ...twoApprovals(), threshold: '2.5', approvals: 3, walletIds: null },
    });
    expect(edited.body.sentence).toBe('Withdrawals of 2.5 ETH or more from any wallet need 3 approvals');
    const disabled = await admin.b.call('POST', `/console/api/policies/${id}/disable`);
    expect(disabled.body.enabled).toBe(false);
    expect((await admin.b.call('POST', `/console/api/policies/${id}/enable`)).body.enabled).toBe(true);
    const listed = await admin.b.call('GET', '/console/api/policies');
    expect(listed.body.data.map((p: { id: number; sentence: string }) => [p.id, p.sentence])).toEqual([[id, edited.body.sentence]]);

    const rows = await t
      .db('audit_log')
      .where({ target_type: 'policy', target_id: String(id) })
      .orderBy('id');
    expect(rows.map((r) => [r.action, r.actor_type, r.actor_id, r.company_id])).toEqual(
      ['policy.created', 'policy.changed', 'policy.disabled', 'policy.enabled'].map((a) => [
        a,
        'member',
        String(admin.memberId),
        s.companyId,
      ]),
    );
    expect(rows[1].details).toEqual({
      name: 'two sign-offs',
      before: `Withdrawals of 1 ETH or more from wallet "treasury" (#${walletId}) need 2 approvals`,
      rule: 'Withdrawals of 2.5 ETH or more from any wallet need 3 approvals',
    });
    expect(rows.every((r) => String(r.ip).includes('127.0.0.1'))).toBe(true);
    await t.db('spending_policies').where({ id }).delete();
  });

  it('names the field of each mistake (400 validation_failed) and stores nothing', async () => {
    const other = await seedCompany(t.db, 'paid', 'Other');
    const [{ id: foreignWallet }] = await t
      .db('wallets')
      .insert({ company_id: other.companyId, name: 'theirs', chain: 'ethereum', network: 'sepolia', secret_envelope: {} })
      .returning('id');
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ threshold: 1 }, 'threshold', /must be an exact decimal string/],
      [{ threshold: '1e3' }, 'threshold', /must be an exact decimal string/],
      [{ threshold: '0.0000000000000000001' }, 'threshold', /more than 18 decimal places/],
      [{ approvals: 0 }, 'approvals', /from 1 to 20/],
      [{ approvals: '2' }, 'approvals', /from 1 to 20/],
      [{ name: ' ' }, 'name', /non-empty/],
      [{ kind: 'sometimes' }, 'kind', /must be one of/],
      [{ asset: 'DOGE' }, 'asset', /no followed chain \(ethereum\/sepolia\) has an asset with the symbol "DOGE"/],
      [{ asset: undefined }, 'asset', /is needed/],
      [{ walletIds: [foreignWallet] }, 'walletIds', new RegExp(`wallet ${foreignWallet}, which this company does not have`)],
      [{ kind: 'max_per_transaction', max: '-1' }, 'max', /exact decimal string/],
      [{ kind: 'deny_destinations', addresses: [] }, 'addresses', /non-empty list/],
    ];
    for (const [change, field, words] of cases) {
      const r = await create({ ...twoApprovals(), ...change });
      expect([r.status, r.body.code, r.body.field, change]).toEqual([400, 'validation_failed', field, change]);
      expect(r.body.message).toMatch(words);
      expect(r.body.message.startsWith(`"${field}"`)).toBe(true);
    }
    expect(await t.db('spending_policies').count({ n: '*' }).first()).toEqual({ n: 0 });
  });

  it('checks list addresses with the chains own validation (as the CLI did) and stores the form withdrawals are compared in', async () => {
    const deny = (addresses: string[], more: Record<string, unknown> = {}) =>
      create({ name: 'blocked', kind: 'deny_destinations', chain: 'bitcoin', addresses, ...more });
    const bad = await create({ name: 'blocked', kind: 'deny_destinations', addresses: ['0xnotanaddress'] });
    expect([bad.status, bad.body.field, bad.body.message]).toEqual([
      400,
      'addresses',
      '"addresses": "0xnotanaddress" is not a valid address on any chain this service supports',
    ]);
    expect((await deny(['0x000000000000000000000000000000000000dEaD'])).body.message).toMatch(/is not a valid address on bitcoin/);
    const address = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu';
    for (const padded of [` ${address}`, `${address}\u00a0`]) expect((await deny([padded])).body.message).toMatch(/has blanks around it/);
    // A bech32 string with a valid checksum: dogecoin has no segwit, so no payment can go there.
    const doge = await deny(['doge1qqurswpc8qurswpc8qurswpc8qurswpc8xnkc0f'], { chain: 'dogecoin' });
    expect(doge.body.message).toMatch(/is not a valid address on dogecoin/);
    expect(await t.db('spending_policies').count({ n: '*' }).first()).toEqual({ n: 0 });

    const ok = await deny([address], { network: 'mainnet' });
    expect(ok.status).toBe(201);
    expect(ok.body.sentence).toBe(`Withdrawals from any wallet to ${address} are refused`);
    const stored = await t.db('spending_policies').where({ id: ok.body.id }).first('params');
    expect(stored.params).toEqual({ addresses: [address], matchKeys: ['0014c0cebcd6c3d3ca8c75dc5ec62ebe55330ef910e2'] });

    const allow = await create({
      name: 'payees',
      kind: 'allow_destinations',
      asset: 'USDC',
      addresses: ['0x000000000000000000000000000000000000dEaD'],
    });
    expect(allow.body.sentence).toBe(
      'Withdrawals of USDC from any wallet go only to allow-listed addresses (0x000000000000000000000000000000000000dEaD); any other destination is refused',
    );
  });

  it('takes an asset by symbol and keeps amounts exact in base units', async () => {
    const r = await create({ name: 'usdc sign-off', kind: 'approval_above', asset: 'USDC', threshold: '250.000001', approvals: 2 });
    expect(r.body).toMatchObject({ threshold: '250.000001', asset: { key: `ethereum:sepolia:${usdc.toLowerCase()}`, symbol: 'USDC' } });
    expect((await t.db('spending_policies').where({ id: r.body.id }).first('params')).params).toEqual({
      threshold: '250000001',
      approvals: 2,
    });
    const cap = await create({ name: 'cap', kind: 'daily_volume', asset: 'ethereum:sepolia:eth', max: '50' });
    expect(cap.body.sentence).toBe('Each wallet may send at most 50 ETH in any 24 hours; withdrawals beyond that are refused');
  });

  it("answers 404 for another company's policy and leaves it alone", async () => {
    const other = await seedCompany(t.db, 'paid', 'Elsewhere');
    const [{ id }] = await t
      .db('spending_policies')
      .insert({
        company_id: other.companyId,
        name: 'theirs',
        kind: 'max_per_transaction',
        params: { max: '1' },
        asset_key: 'ethereum:sepolia:eth',
      })
      .returning('id');
    await stepUp(admin);
    for (const [method, path, body] of [
      ['PUT', `/console/api/policies/${id}`, twoApprovals()],
      ['POST', `/console/api/policies/${id}/disable`, undefined],
      ['POST', '/console/api/policies/x/enable', undefined],
    ] as const) {
      const r = await admin.b.call(method, path, { body });
      expect([r.status, r.body.code]).toEqual([404, 'not_found']);
    }
    expect(await t.db('spending_policies').where({ id }).first('name', 'enabled')).toEqual({ name: 'theirs', enabled: true });
    const listed = await admin.b.call('GET', '/console/api/policies');
    expect(listed.body.data.some((p: { id: number }) => p.id === id)).toBe(false);
  });
});
