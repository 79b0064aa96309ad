import { randomBytes } from 'node:crypto';
import { addPolicy } from '@walletd/server';
import {
  type ConsoleServer,
  type Seeded,
  type TestApp,
  type TestDatabase,
  call,
  expectSchema,
  keyFor,
  onboardMember,
  type FundedTreasury,
  startFundedTreasury,
} from '@walletd/test-harness';

/**
 * The destination address book (issue 42 §7) over the API and the console's HTTP API on anvil:
 * entries validated and normalised by the EVM plugin, an `address_book` policy refusing any other
 * destination, a new entry refused with address_cooling_off until its cooling-off period ends
 * (moved by the database's clock, no sleep), an owner's request plus a second member's approval
 * ending it early, a removed entry not paid even when prepared before, all audited.
 */
describe('the address book and its cooling-off lock', () => {
  let t: TestDatabase;
  let app: TestApp;
  let con: ConsoleServer;
  let s: Seeded;
  let walletId: number;
  // EIP-55's own examples: given in lower case, shown checksummed.
  const supplier = '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed';
  const supplierShown = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
  const payroll = '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359';
  const stranger = '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB';
  const api = (method: string, path: string, body?: unknown, key = s.rootKey) => call(app.url, method, `/v1${path}`, { key, body });
  const withdraw = (to: string, amount = '0.1') =>
    api('POST', `/wallets/${walletId}/withdrawals`, {
      asset: 'ETH',
      toAddress: to,
      amount,
      idempotencyKey: randomBytes(8).toString('hex'),
    });

  let funded: FundedTreasury | undefined;
  beforeAll(async () => {
    funded = await startFundedTreasury();
    ({ t, app, con, s, walletId } = funded);
  });
  afterAll(async () => {
    await funded?.close();
  });

  it('API: entries validated and normalised per chain, cooling off for 48 h, refused by the address_book policy until then, paid after', async () => {
    const bad = await api('POST', '/address-book', { name: 'typo', chain: 'ethereum', network: 'devnet', address: '0x5aaeb6053f3e94c9' });
    expect(bad).toMatchObject({ status: 400, body: { code: 'invalid_address' } });
    const unknown = await api('POST', '/address-book', { name: 'x', chain: 'ethereum', network: 'devnet', address: supplier, extra: 1 });
    expect(unknown).toMatchObject({ status: 400, body: { code: 'validation_failed' } });

    const added = await api('POST', '/address-book', {
      name: 'Supplier GmbH',
      chain: 'ethereum',
      network: 'devnet',
      address: supplier,
      walletId,
    });
    expect(added.status).toBe(201);
    expectSchema('AddressBookEntry', added.body);
    expect(added.body).toMatchObject({
      name: 'Supplier GmbH',
      address: supplierShown,
      walletId,
      status: 'cooling_off',
      createdByKey: expect.any(Number),
    });
    expect(Date.parse(added.body.usableFrom) - Date.parse(added.body.createdAt)).toBe(48 * 3_600_000);
    const again = await api('POST', '/address-book', {
      name: 'same',
      chain: 'ethereum',
      network: 'devnet',
      address: supplierShown,
      walletId,
    });
    expect(again).toMatchObject({ status: 409, body: { code: 'conflict' } });

    // A key scoped to other wallets sees neither this wallet's entries nor may add company-wide ones.
    const other = (await api('POST', '/wallets', { name: 'ops', chain: 'ethereum', network: 'devnet' })).body.id as number;
    const scoped = await keyFor(t.db, s.companyId, { actions: ['withdrawals:read', 'withdrawals:create'], walletIds: [other] });
    expect((await api('GET', '/address-book', undefined, scoped.key)).body).toEqual({ entries: [] });
    expect(
      await api('POST', '/address-book', { name: 'drain', chain: 'ethereum', network: 'devnet', address: stranger }, scoped.key),
    ).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    expectSchema('AddressBookEntryList', (await api('GET', '/address-book')).body);

    // Without an address_book policy the book refuses nothing; with one, only usable entries receive.
    expect((await withdraw(stranger)).status).toBe(201);
    const policy = await addPolicy(t.db, {
      companyId: s.companyId,
      name: 'only the book',
      kind: 'address_book',
      walletIds: null,
      assetKey: null,
    });
    const notBooked = await withdraw(stranger);
    expect(notBooked).toMatchObject({ status: 403, body: { code: 'policy_denied', policyIds: String(policy.id) } });
    expect(notBooked.body.message).toMatch(/not in the address book/);
    const cooling = await withdraw(supplier);
    expect(cooling).toMatchObject({ status: 403, body: { code: 'address_cooling_off', policyIds: String(policy.id) } });
    expect(cooling.body.message).toContain(added.body.usableFrom);
    const proposed = await api('POST', '/withdrawal-requests', { walletId, asset: 'ETH', toAddress: supplier, amount: '0.1' });
    expect(proposed).toMatchObject({ status: 403, body: { code: 'address_cooling_off' } });

    // 48 hours pass on the database's clock: the entry can receive.
    await t
      .db('address_book_entries')
      .where({ id: added.body.id })
      .update({ usable_from: t.db.raw("now() - interval '1 second'") });
    expect((await api('GET', '/address-book')).body.entries).toEqual([expect.objectContaining({ id: added.body.id, status: 'usable' })]);
    const paid = await withdraw(supplier);
    expect(paid).toMatchObject({ status: 201, body: { status: 'prepared', toAddress: supplierShown } });

    // Removed after a withdrawal to it was prepared: signing refuses it.
    expect((await api('DELETE', `/address-book/${added.body.id}`)).status).toBe(204);
    expect(await api('POST', `/withdrawals/${paid.body.id}/sign`, {})).toMatchObject({ status: 403, body: { code: 'policy_denied' } });
    const audited = await t.db('audit_log').where({ company_id: s.companyId, target_type: 'address_book_entry' }).orderBy('id');
    expect(audited.map((a) => [a.action, a.actor_type])).toEqual([
      ['address_book.added', 'api_key'],
      ['address_book.removed', 'api_key'],
    ]);
    expect(audited[0].details).toMatchObject({ address: supplierShown, usableFrom: added.body.usableFrom });
  });

  it('console: owners and admins add with a step-up; an owner asks and a second member approves to end the cooling-off early', async () => {
    const owner = await onboardMember(con, t.db, { companyId: s.companyId, email: `owner-${s.companyId}@example.com`, role: 'owner' });
    const alice = await onboardMember(con, t.db, { companyId: s.companyId, email: 'alice@acme.test', role: 'admin' });
    const dev = await onboardMember(con, t.db, { companyId: s.companyId, email: 'dev@acme.test', role: 'developer' });
    type M = typeof owner;
    const post = (m: M, path: string, body?: unknown) => m.b.call('POST', `/console/api/address-book${path}`, { body });
    const stepUp = (m: M) => m.b.call('POST', '/console/api/step-up', { body: { code: m.code() } });
    const entry = { name: 'Payroll \u202eevil', chain: 'ethereum', network: 'devnet', address: payroll };

    expect(await post(dev, '', { ...entry, name: 'Payroll' })).toMatchObject({ status: 403, body: { code: 'role_insufficient' } });
    expect(await post(alice, '', entry)).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
    con.clock.now += 6 * 60_000;
    const named = { ...entry, name: 'Payroll' };
    expect(await post(alice, '', named)).toMatchObject({ status: 403, body: { code: 'step_up_required' } });
    expect((await stepUp(alice)).status).toBe(200);
    const added = await post(alice, '', named);
    expect(added).toMatchObject({ status: 201, body: { name: 'Payroll', walletId: null, walletName: null, status: 'cooling_off' } });
    const id = added.body.id as number;
    expect((await withdraw(payroll)).body.code).toBe('address_cooling_off');

    // Only an owner asks; the owner cannot approve their own request; another member can.
    expect(await post(alice, `/${id}/shorten`)).toMatchObject({ status: 403, body: { code: 'role_insufficient' } });
    expect(await post(alice, `/${id}/approve-shorten`)).toMatchObject({ status: 409, body: { code: 'conflict' } });
    expect((await stepUp(owner)).status).toBe(200);
    expect(await post(owner, `/${id}/shorten`)).toMatchObject({
      status: 200,
      body: { status: 'cooling_off', shortenRequestedBy: owner.memberId },
    });
    expect(await post(owner, `/${id}/approve-shorten`)).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    expect((await withdraw(payroll)).body.code).toBe('address_cooling_off');
    const approved = await post(alice, `/${id}/approve-shorten`);
    expect(approved).toMatchObject({ status: 200, body: { status: 'usable', shortenedBy: alice.memberId } });
    expect(await withdraw(payroll)).toMatchObject({ status: 201, body: { status: 'prepared' } });

    const listed = await dev.b.call('GET', '/console/api/address-book');
    expect(listed.body).toMatchObject({ coolingOffMs: 172_800_000, data: [expect.objectContaining({ id, status: 'usable' })] });
    const audited = await t
      .db('audit_log')
      .where({ target_type: 'address_book_entry', target_id: String(id) })
      .orderBy('id');
    expect(audited.map((a) => [a.action, a.actor_id])).toEqual([
      ['address_book.added', String(alice.memberId)],
      ['address_book.shorten_requested', String(owner.memberId)],
      ['address_book.shortened', String(alice.memberId)],
    ]);
    expect(audited[2].details).toMatchObject({ requestedBy: owner.memberId, sessionId: expect.any(Number) });
  });
});
