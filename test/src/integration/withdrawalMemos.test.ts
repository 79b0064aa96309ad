import { randomBytes } from 'node:crypto';
import { type ChainSettings, MasterKey, createLogger, registerPlugins } from '@walletd/core';
import { createEvmPlugin } from '@walletd/plugin-evm';
import { type Common, voteOnRequest } from '@walletd/server';
import {
  type RecordedCalls,
  type Seeded,
  type TestApp,
  type TestDatabase,
  call,
  createRecordingPlugin,
  createTestDatabase,
  expectSchema,
  keyFor,
  seedCompany,
  startTestApp,
  testConfig,
  creditAddress,
  nativeAsset,
} from '@walletd/test-harness';

/**
 * Issue 11, defect 2: a memo or destination tag is part of the intent. Stored per output with the
 * withdrawal (and the request), under the intent's guard, handed to the plugin at prepare and at
 * signing, shown in the views; refused (400) by a chain that cannot carry it, never dropped.
 * The memo-carrying chain is the recording test double on XRP devnet (no node needed); EVM is the
 * shipped plugin (no node is reached: the refusals come first).
 */
describe('memo and destination tag of a withdrawal', () => {
  let t: TestDatabase;
  let app: TestApp;
  let s: Seeded;
  let calls: RecordedCalls;
  let common: Common;
  let xrp: number;
  let eth: number;
  const masterKey = new MasterKey(randomBytes(32));
  const to = 'r0000000000000000000000ff';
  const ethTo = '0x000000000000000000000000000000000000dEaD';

  const api = (method: string, path: string, body?: unknown, key = s.rootKey) => call(app.url, method, `/v1${path}`, { key, body });
  let n = 0;
  const prepare = (walletId: number, body: Record<string, unknown>) =>
    api('POST', `/wallets/${walletId}/withdrawals`, { idempotencyKey: `k${++n}`, ...body });

  beforeAll(async () => {
    t = await createTestDatabase();
    const recording = createRecordingPlugin('xrp');
    calls = recording.calls;
    const plugins = registerPlugins([createEvmPlugin(), recording.plugin]);
    // Unreachable nodes: nothing here may need one.
    const chains: ChainSettings[] = [
      { chain: 'xrp', network: 'devnet', rpcUrl: 'http://127.0.0.1:9' },
      { chain: 'ethereum', network: 'devnet', rpcUrl: 'http://127.0.0.1:9' },
    ];
    app = await startTestApp(t.db, { chains, rateLimit: { writesPerKeyPerMinute: 1000 } }, masterKey, plugins);
    common = { config: testConfig({ chains }), logger: createLogger({ level: 'silent' }), db: t.db, masterKey, plugins };
    s = await seedCompany(t.db);
    xrp = (await api('POST', '/wallets', { name: 'xrp', chain: 'xrp', network: 'devnet' })).body.id;
    eth = (await api('POST', '/wallets', { name: 'eth', chain: 'ethereum', network: 'devnet' })).body.id;
    const xrpAddress = (await api('POST', `/wallets/${xrp}/addresses`)).body;
    await api('POST', `/wallets/${eth}/addresses`);
    // Funds as the indexer would have credited them (no indexer follows the double).
    await creditAddress(t.db, xrpAddress, nativeAsset('xrp', 'devnet').key, 1_000_000_000n);
  });
  afterAll(async () => {
    await app.close();
    await t.drop();
  });

  it('refuses a memo, a tag or several recipients on ethereum with 400 naming the field, and records nothing', async () => {
    const memo = await prepare(eth, { asset: 'ETH', toAddress: ethTo, amount: '0.1', memo: 'invoice 7' });
    expect(memo.status).toBe(400);
    expect(memo.body).toMatchObject({
      code: 'validation_failed',
      message: expect.stringMatching(/^memo: ethereum devnet .*cannot carry a memo/),
    });
    const tag = await prepare(eth, { asset: 'ETH', toAddress: ethTo, amount: '0.1', destinationTag: 7 });
    expect(tag.status).toBe(400);
    expect(tag.body.message).toMatch(/^destinationTag: ethereum devnet .*cannot carry a destination tag/);
    const perOutput = await prepare(eth, { asset: 'ETH', outputs: [{ toAddress: ethTo, amount: '0.1', memo: 'x' }] });
    expect(perOutput.status).toBe(400);
    expect(perOutput.body.message).toMatch(/^outputs\[0\]\.memo: ethereum devnet/);
    const several = await prepare(eth, {
      asset: 'ETH',
      outputs: [
        { toAddress: ethTo, amount: '0.1' },
        { toAddress: ethTo, amount: '0.2' },
      ],
    });
    expect(several.status).toBe(400);
    expect(several.body.message).toMatch(/ethereum devnet withdrawal pays exactly one recipient/);
    const request = await api('POST', '/withdrawal-requests', { walletId: eth, asset: 'ETH', toAddress: ethTo, amount: '0.1', memo: 'm' });
    expect(request.status).toBe(400);
    expect(request.body.message).toMatch(/^memo: ethereum/);
    expect(Number((await t.db('withdrawals').count({ n: '*' }).first())?.n)).toBe(0);
    expect(Number((await t.db('withdrawal_requests').count({ n: '*' }).first())?.n)).toBe(0);
  });

  it('a top-level memo goes with toAddress only', async () => {
    const r = await prepare(xrp, { asset: 'XRP', outputs: [{ toAddress: to, amount: '1' }], memo: 'm' });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/^memo at the top level goes with toAddress and amount/);
  });

  it('stores memo and tag with the withdrawal and hands them to build and sign; the broadcast event carries them', async () => {
    const prepared = await prepare(xrp, { asset: 'XRP', toAddress: to, amount: '1.5', memo: 'invoice 7', destinationTag: 424242 });
    expect(prepared.status).toBe(201);
    expectSchema('Withdrawal', prepared.body);
    expect(prepared.body.outputs).toEqual([{ toAddress: to, amount: '1.5', memo: 'invoice 7', destinationTag: 424242 }]);
    const stored = await t.db('withdrawals').where({ id: prepared.body.id }).first('outputs');
    expect(stored.outputs).toEqual([{ toAddress: to, amount: '1500000', memo: 'invoice 7', destinationTag: 424242 }]);
    const output = { to, amount: 1_500_000n, memo: 'invoice 7', destinationTag: 424242 };
    expect(calls.build.at(-1)?.outputs).toEqual([output]);

    calls.build.length = 0;
    calls.sign.length = 0;
    const sent = await api('POST', `/withdrawals/${prepared.body.id}/broadcast`, {});
    expect(sent.status).toBe(200);
    expect(sent.body.status).toBe('broadcast');
    expectSchema('Withdrawal', sent.body);
    // Signing rebuilds the intent from the row: the rebuild and the signature both see the memo.
    expect(calls.build).toHaveLength(1);
    expect(calls.build[0]?.outputs).toEqual([output]);
    expect(calls.sign).toHaveLength(1);
    expect(calls.sign[0]?.intent.outputs).toEqual([output]);
    expect(calls.sign[0]?.payload).toEqual({ outputs: [{ ...output, amount: '1500000' }], sources: expect.any(Array) });

    const [event] = (await t.db('events').where({ type: 'withdrawal.broadcast', company_id: s.companyId }).pluck('body')).map((b: string) =>
      JSON.parse(b),
    );
    expectSchema('EventEnvelope', event);
    expect(event.data).toMatchObject({ toAddress: to, memo: 'invoice 7', destinationTag: 424242 });

    const list = await api('GET', `/transactions?walletId=${xrp}`);
    expectSchema('TransactionList', list.body);
    expect(list.body.transactions[0].outputs).toEqual([{ toAddress: to, amount: '1.5', memo: 'invoice 7', destinationTag: 424242 }]);
  });

  it('binds the idempotency key to the memo: same body replays, another memo conflicts', async () => {
    const body = { asset: 'XRP', toAddress: to, amount: '2', memo: 'a', idempotencyKey: 'memo-key' };
    const first = await api('POST', `/wallets/${xrp}/withdrawals`, body);
    expect(first.status).toBe(201);
    const again = await api('POST', `/wallets/${xrp}/withdrawals`, body);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    const other = await api('POST', `/wallets/${xrp}/withdrawals`, { ...body, memo: 'b' });
    expect(other.status).toBe(409);
    // The per-output spelling of the same single recipient is the same request.
    const perOutput = await api('POST', `/wallets/${xrp}/withdrawals`, {
      asset: 'XRP',
      outputs: [{ toAddress: to, amount: '2', memo: 'a' }],
      idempotencyKey: 'memo-key',
    });
    expect(perOutput.status).toBe(200);
    expect(perOutput.body.id).toBe(first.body.id);
  });

  it('keeps memo and tag from a request through approval to the signed withdrawal', async () => {
    const proposed = await api('POST', '/withdrawal-requests', {
      walletId: xrp,
      asset: 'XRP',
      outputs: [{ toAddress: to, amount: '3', memo: 'payroll', destinationTag: 9 }],
    });
    expect(proposed.status).toBe(201);
    expectSchema('WithdrawalRequest', proposed.body);
    expect(proposed.body.outputs).toEqual([{ toAddress: to, amount: '3', memo: 'payroll', destinationTag: 9 }]);
    const approver = await keyFor(t.db, s.companyId, { actions: ['withdrawals:read'], role: 'admin' });
    const outcome = await voteOnRequest(common, proposed.body.id, approver.memberId, 'approve');
    expect(outcome.withdrawal?.outputs).toEqual([{ toAddress: to, amount: '3', memo: 'payroll', destinationTag: 9 }]);
    calls.sign.length = 0;
    const signed = await api('POST', `/withdrawals/${outcome.withdrawal?.id}/sign`, {});
    expect(signed.status).toBe(200);
    expect(calls.sign[0]?.intent.outputs).toEqual([{ to, amount: 3_000_000n, memo: 'payroll', destinationTag: 9 }]);
  });

  it('the database refuses a changed memo or tag, of a withdrawal and of a request', async () => {
    const prepared = await prepare(xrp, { asset: 'XRP', toAddress: to, amount: '4', memo: 'original', destinationTag: 1 });
    expect(prepared.status).toBe(201);
    const outputs = (await t.db('withdrawals').where({ id: prepared.body.id }).first('outputs')).outputs;
    expect(outputs[0].memo).toBe('original');
    const change = (o: Record<string, unknown>) => JSON.stringify([{ ...outputs[0], ...o }]);
    await expect(
      t
        .db('withdrawals')
        .where({ id: prepared.body.id })
        .update({ outputs: change({ memo: 'forged' }) }),
    ).rejects.toThrow(/the memo and destination tag of withdrawal \d+ cannot change/);
    await expect(
      t
        .db('withdrawals')
        .where({ id: prepared.body.id })
        .update({ outputs: change({ destinationTag: 2 }) }),
    ).rejects.toThrow(/the memo and destination tag of withdrawal \d+ cannot change/);
    const { memo: _m, ...withoutMemo } = outputs[0];
    await expect(
      t
        .db('withdrawals')
        .where({ id: prepared.body.id })
        .update({ outputs: JSON.stringify([withoutMemo]) }),
    ).rejects.toThrow(/cannot change/);

    const proposed = await api('POST', '/withdrawal-requests', { walletId: xrp, asset: 'XRP', toAddress: to, amount: '5', memo: 'req' });
    expect(proposed.status).toBe(201);
    const { intent } = await t.db('withdrawal_requests').where({ id: proposed.body.id }).first('intent');
    expect(intent.outputs[0].memo).toBe('req');
    intent.outputs[0].memo = 'forged';
    await expect(
      t
        .db('withdrawal_requests')
        .where({ id: proposed.body.id })
        .update({ intent: JSON.stringify(intent) }),
    ).rejects.toThrow(/the memo and destination tag of withdrawal request \d+ cannot change/);
  });

  it('the database refuses a memo that is not text or a tag out of range', async () => {
    const prepared = await prepare(xrp, { asset: 'XRP', toAddress: to, amount: '6' });
    const row = await t.db('withdrawals').where({ id: prepared.body.id }).first();
    const insert = (output: Record<string, unknown>) =>
      t.db('withdrawals').insert({
        ...row,
        id: undefined,
        idempotency_key: null,
        outputs: JSON.stringify([{ toAddress: to, amount: '1', ...output }]),
        asset: JSON.stringify(row.asset),
        unsigned_tx: JSON.stringify(row.unsigned_tx),
      });
    await expect(insert({ memo: 7 })).rejects.toThrow(/withdrawals_output_memos_valid/);
    await expect(insert({ destinationTag: 4294967296 })).rejects.toThrow(/withdrawals_output_memos_valid/);
    await expect(insert({ destinationTag: 1.5 })).rejects.toThrow(/withdrawals_output_memos_valid/);
    await expect(insert({ memo: 'ok', destinationTag: 4294967295 })).resolves.toBeDefined();
  });
});
