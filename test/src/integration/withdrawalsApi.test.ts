import { randomBytes } from 'node:crypto';
import { type ChainSettings, MasterKey, fromBaseUnits, mnemonicToSeed } from '@walletd/core';
import { createDetectPool, type DetectPool, type Follower } from '@walletd/indexer';
import { addPolicy, setPolicyEnabled } from '@walletd/server';
import { HDNodeWallet, Transaction } from 'ethers';
import {
  type Anvil,
  type Seeded,
  type TestApp,
  type TestDatabase,
  type TestToken,
  call,
  createTestDatabase,
  deployTestToken,
  eventually,
  keyFor,
  seedCompany,
  startAnvil,
  startTestApp,
  expectSchema,
  recordDeposit,
  startRpcProxy,
  testFollower,
} from '@walletd/test-harness';

/**
 * Withdrawals as a caller drives them, on anvil: prepare → (sign) → broadcast through the API,
 * the indexer's tracker to confirmed or rejected, and the events a receiver gets.
 */
describe('withdrawals through the API on anvil', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let pool: DetectPool;
  let usdc: TestToken;
  let app: TestApp;
  let s: Seeded;
  let settings: ChainSettings;
  let follower: Follower;
  let walletId: number;
  let source: string;
  let second: string;
  const masterKey = new MasterKey(randomBytes(32));
  const recipient = '0x000000000000000000000000000000000000dEaD';

  const api = (method: string, path: string, body?: unknown, key = s.rootKey) => call(app.url, method, `/v1${path}`, { key, body });
  const events = async (type: string) =>
    (await t.db('events').where({ type, company_id: s.companyId }).orderBy('seq').pluck('body')).map((b: string) => JSON.parse(b));
  const balance = async (address: string) => BigInt(await anvil.rpc<string>('eth_getBalance', [address, 'latest']));
  const nonce = async (address: string) => Number(BigInt(await anvil.rpc<string>('eth_getTransactionCount', [address, 'latest'])));
  const prepare = (body: Record<string, unknown>, key?: string) => api('POST', `/wallets/${walletId}/withdrawals`, body, key);
  /** One more block, then one indexer round (deposits and withdrawals). */
  const round = async (blocks = 1) => {
    if (blocks > 0) await anvil.mine(blocks);
    await follower.tick();
  };

  beforeAll(async () => {
    t = await createTestDatabase();
    anvil = await startAnvil();
    pool = createDetectPool(1);
    usdc = await deployTestToken(anvil, 'USD Coin', 'USDC', 6);
    settings = {
      chain: 'ethereum',
      network: 'devnet',
      rpcUrl: anvil.url,
      confirmations: 2,
      startBlock: 0,
      tokens: [{ contract: usdc.address, symbol: 'USDC', decimals: 6 }],
    };
    // This file makes more than 20 value-moving writes a minute; the limit has its own test below.
    app = await startTestApp(t.db, { chains: [settings], rateLimit: { writesPerKeyPerMinute: 1000 } }, masterKey);
    follower = testFollower(t.db, pool, settings);
    s = await seedCompany(t.db);
    walletId = (await api('POST', '/wallets', { name: 'hot', chain: 'ethereum', network: 'devnet' })).body.id;
    source = (await api('POST', `/wallets/${walletId}/addresses`)).body.address;
    second = (await api('POST', `/wallets/${walletId}/addresses`)).body.address;
    await anvil.send(source, 5n * 10n ** 18n);
    await usdc.mint(source, 1_000_000_000n);
    await round(2);
  });
  afterAll(async () => {
    await app.close();
    await pool.close();
    await anvil.stop();
    await t.drop();
  });

  it('pays native ETH: prepared, signed by the service, broadcast once, confirmed at the threshold with the fee', async () => {
    const before = await balance(recipient);
    const prepared = await prepare({ asset: 'ETH', toAddress: recipient, amount: '0.25', idempotencyKey: 'native-1' });
    expect(prepared.status).toBe(201);
    expectSchema('Withdrawal', prepared.body);
    expect(prepared.body).toMatchObject({
      status: 'prepared',
      amount: '0.25',
      toAddress: recipient,
      fromAddress: source,
      sourceAddresses: [source],
      asset: { key: 'ethereum:devnet:eth', symbol: 'ETH', decimals: 18, contractAddress: null },
      txHash: null,
      fee: null,
    });
    expect(prepared.body.unsignedTransaction.signers).toEqual([{ address: source, derivationPath: "m/44'/60'/0'/0/0" }]);
    expect(BigInt(prepared.body.unsignedTransaction.payload.value)).toBe(250_000_000_000_000_000n);

    const sent = await api('POST', `/withdrawals/${prepared.body.id}/broadcast`);
    expect(sent.status).toBe(200);
    expectSchema('Withdrawal', sent.body);
    expect(sent.body).toMatchObject({ status: 'broadcast', signedBy: 'server' });
    const txHash: string = sent.body.txHash;
    // The audit log reads like money and says where the key's call came from (issue 47 §4).
    const logged = await t
      .db('audit_log')
      .where({ target_type: 'withdrawal', target_id: String(prepared.body.id) })
      .orderBy('id');
    expect(logged.map((r) => [r.action, r.details.amount ?? r.details.txHash])).toEqual([
      ['withdrawal.prepared', '0.25 ETH'],
      ['withdrawal.signed', txHash],
    ]);
    expect(logged[1].ip).toMatch(/127\.0\.0\.1/);
    const broadcastEvents = await events('withdrawal.broadcast');
    expect(broadcastEvents).toHaveLength(1);
    expectSchema('EventEnvelope', broadcastEvents[0]);
    expect(broadcastEvents[0].data).toEqual({
      chain: 'ethereum',
      network: 'devnet',
      withdrawalId: prepared.body.id,
      txHash,
      status: 'broadcast',
      amount: '0.25',
      asset: { key: 'ethereum:devnet:eth', symbol: 'ETH', decimals: 18, contractAddress: null },
      fromAddress: source,
      sourceAddresses: [source],
      kind: 'payout',
      toAddress: recipient,
    });

    // Mined in one block (automine): 1 confirmation of 2, still broadcast.
    await round(0);
    expect((await api('GET', `/withdrawals/${prepared.body.id}`)).body).toMatchObject({ status: 'broadcast', confirmations: 1 });
    expect(await events('withdrawal.confirmed')).toHaveLength(0);
    await round(1);
    const receipt = await anvil.rpc<{ gasUsed: string; effectiveGasPrice: string }>('eth_getTransactionReceipt', [txHash]);
    const fee = BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice);
    const confirmed = await events('withdrawal.confirmed');
    expect(confirmed).toHaveLength(1);
    expectSchema('EventEnvelope', confirmed[0]);
    expect(confirmed[0].data).toMatchObject({ status: 'confirmed', txHash, amount: '0.25', confirmations: 2 });
    expect(fee).toBeGreaterThan(0n);
    expect(confirmed[0].data.fee).toEqual({
      amount: fromBaseUnits(fee, 18),
      asset: { key: 'ethereum:devnet:eth', symbol: 'ETH', decimals: 18, contractAddress: null },
    });
    const view = (await api('GET', `/withdrawals/${prepared.body.id}`)).body;
    expectSchema('Withdrawal', view);
    expect(view.fee.amount).toBe(confirmed[0].data.fee.amount);
    expect(view.history.map((h: { status: string }) => h.status)).toEqual(['prepared', 'signed', 'broadcast', 'confirmed']);
    expect((await balance(recipient)) - before).toBe(250_000_000_000_000_000n);
    // A second tracker round announces nothing again.
    await round(1);
    expect(await events('withdrawal.confirmed')).toHaveLength(1);
  });

  it('pays an ERC-20 from the address holding it, confirmed only with its Transfer log, fee in the native asset', async () => {
    const prepared = await prepare({ asset: 'USDC', toAddress: recipient, amount: '12.345678', idempotencyKey: 'usdc-1' });
    expect(prepared.status).toBe(201);
    expect(prepared.body).toMatchObject({ amount: '12.345678', asset: { symbol: 'USDC', decimals: 6 }, fromAddress: source });
    const sent = await api('POST', `/withdrawals/${prepared.body.id}/broadcast`);
    expect(sent.body.status).toBe('broadcast');
    await round(1);
    const confirmed = (await events('withdrawal.confirmed')).filter((e) => e.data.withdrawalId === prepared.body.id);
    expect(confirmed).toHaveLength(1);
    expect(confirmed[0].data).toMatchObject({
      amount: '12.345678',
      asset: { key: `ethereum:devnet:${usdc.address.toLowerCase()}`, symbol: 'USDC', decimals: 6, contractAddress: usdc.address },
      toAddress: recipient,
      fee: { asset: { symbol: 'ETH' } },
    });
  });

  it('replays the same idempotency key and body, refuses the key with another body', async () => {
    const body = { asset: 'ETH', toAddress: recipient, amount: '0.01', idempotencyKey: 'idem-1' };
    const first = await prepare(body);
    expect(first.status).toBe(201);
    // The same intent written differently (lowercase address, trailing zero) is the same request.
    const again = await prepare({ ...body, toAddress: recipient.toLowerCase(), amount: '0.010' });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    const other = await prepare({ ...body, amount: '0.02' });
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ statusCode: 409, error: 'Conflict', code: 'idempotency_conflict' });
    expect(other.body.message).toMatch(/already used for a withdrawal with a different body/);
    expect(await t.db('withdrawals').where({ idempotency_key: 'idem-1' }).count({ n: '*' })).toEqual([{ n: 1 }]);
    expect((await api('POST', `/withdrawals/${first.body.id}/cancel`)).body.status).toBe('cancelled');
  });

  it('answers bad input with clear 4xx errors and records nothing', async () => {
    const count = async () => Number((await t.db('withdrawals').count({ n: '*' }))[0]?.n);
    const before = await count();
    const cases: [Record<string, unknown>, number, string, RegExp][] = [
      [{ asset: 'ETH', toAddress: '0x1234', amount: '1', idempotencyKey: 'e1' }, 400, 'invalid_address', /toAddress "0x1234"/],
      [{ asset: 'DOGE', toAddress: recipient, amount: '1', idempotencyKey: 'e2' }, 422, 'unknown_asset', /unknown asset "DOGE"/],
      [{ asset: 'ETH', toAddress: recipient, amount: '1000', idempotencyKey: 'e3' }, 422, 'insufficient_funds', /too little|insufficient/],
      [{ asset: 'USDC', toAddress: recipient, amount: '999999', idempotencyKey: 'e4' }, 422, 'insufficient_funds', /too little USDC/],
      [{ asset: 'USDC', toAddress: recipient, amount: '0.0000001', idempotencyKey: 'e5' }, 400, 'invalid_amount', /more than 6 decimal/],
      [
        { asset: 'ETH', toAddress: recipient, amount: 1, idempotencyKey: 'e6' },
        400,
        'invalid_amount',
        /^amount must be a positive decimal string/,
      ],
      // Above uint256: refused before the node is asked (it answered eth_estimateGas with an error, a 502).
      [
        { asset: 'ETH', toAddress: recipient, amount: `1${'0'.repeat(80)}`, idempotencyKey: 'e9' },
        400,
        'invalid_amount',
        /exceeds the largest amount/,
      ],
      [{ asset: 'ETH', toAddress: recipient, idempotencyKey: 'e7' }, 400, 'validation_failed', /toAddress and amount/],
      [{ asset: 'ETH', toAddress: recipient, amount: '1' }, 400, 'validation_failed', /idempotencyKey/],
      [{ asset: 'ETH', toAddress: recipient, amount: '0', idempotencyKey: 'e8' }, 400, 'invalid_amount', /greater than zero/],
    ];
    for (const [body, status, code, message] of cases) {
      const r = await prepare(body);
      expect({ body, status: r.status, code: r.body.code }).toEqual({ body, status, code });
      expect(r.body.message).toMatch(message);
    }
    expect(await count()).toBe(before);
  });

  it('refuses by policy with the code and policyIds, in the documented order, recording nothing', async () => {
    const count = async () => Number((await t.db('withdrawals').count({ n: '*' }))[0]?.n);
    const before = await count();
    const eth = 'ethereum:devnet:eth';
    const deny = await addPolicy(t.db, {
      companyId: s.companyId,
      name: 'blocked',
      kind: 'deny_destinations',
      walletIds: null,
      assetKey: null,
      addresses: [recipient],
    });
    const allow = await addPolicy(t.db, {
      companyId: s.companyId,
      name: 'known payees',
      kind: 'allow_destinations',
      walletIds: [walletId],
      assetKey: null,
      addresses: [recipient, second],
    });
    const max = await addPolicy(t.db, {
      companyId: s.companyId,
      name: 'cap',
      kind: 'max_per_transaction',
      walletIds: null,
      assetKey: eth,
      max: 10n ** 18n,
    });
    const daily = await addPolicy(t.db, {
      companyId: s.companyId,
      name: 'daily',
      kind: 'daily_volume',
      walletIds: null,
      assetKey: eth,
      max: 6n * 10n ** 17n,
    });
    const approval = await addPolicy(t.db, {
      companyId: s.companyId,
      name: 'big ones',
      kind: 'approval_above',
      walletIds: null,
      assetKey: eth,
      threshold: 10n ** 17n,
      approvals: 2,
    });
    const attempt = (to: string, amount: string) => prepare({ asset: 'ETH', toAddress: to, amount, idempotencyKey: `p-${to}-${amount}` });
    const expectRefusal = async (to: string, amount: string, code: string, ids: number[], message: RegExp) => {
      const r = await attempt(to, amount);
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ statusCode: 403, error: 'Forbidden', code, policyIds: ids.join(',') });
      expect(r.body.message).toMatch(message);
    };
    // The denial wins over everything after it.
    await expectRefusal(recipient, '5', 'policy_denied', [deny.id], /policy "blocked" \(id \d+\): the destination is denied/);
    await setPolicyEnabled(t.db, deny.id, false);
    await expectRefusal('0x1111111111111111111111111111111111111111', '0.001', 'policy_denied', [allow.id], /not on the allow-list/);
    await expectRefusal(recipient, '1.5', 'policy_denied', [max.id], /1.5 ETH exceeds the per-transaction maximum of 1 ETH/);
    // 0.25 ETH went out today (the 0.01 ETH prepared then cancelled does not count).
    await expectRefusal(recipient, '0.5', 'policy_denied', [daily.id], /0.5 ETH would bring the last 24 hours to 0.75 ETH, above 0.6 ETH/);
    await expectRefusal(
      recipient,
      '0.2',
      'policy_approval_required',
      [approval.id],
      /needs 2 approvals; propose it with POST \/v1\/withdrawal-requests/,
    );
    expect(await count()).toBe(before);
    // Under every threshold: allowed.
    const small = await attempt(recipient, '0.05');
    expect(small.status).toBe(201);
    await api('POST', `/withdrawals/${small.body.id}/cancel`);
    for (const p of [allow, max, daily, approval]) await setPolicyEnabled(t.db, p.id, false);
  });

  it('sends one transaction when two broadcasts of one withdrawal race', async () => {
    const prepared = await prepare({ asset: 'ETH', toAddress: recipient, amount: '0.001', idempotencyKey: 'race-1' });
    expect(prepared.body).toMatchObject({ status: 'prepared' });
    const nonceBefore = await nonce(source);
    const [a, b] = await Promise.all([
      api('POST', `/withdrawals/${prepared.body.id}/broadcast`),
      api('POST', `/withdrawals/${prepared.body.id}/broadcast`),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body.txHash).toBe(b.body.txHash);
    expect(await nonce(source)).toBe(nonceBefore + 1);
    const announced = (await events('withdrawal.broadcast')).filter((e) => e.data.withdrawalId === prepared.body.id);
    expect(announced).toHaveLength(1);
    const history = (await api('GET', `/withdrawals/${prepared.body.id}`)).body.history.map((h: { status: string }) => h.status);
    expect(history).toEqual(['prepared', 'signed', 'broadcast']);
    await round(1);
  });

  it('signs once when two sign calls of one withdrawal race, and gives two withdrawals of one wallet their own nonces', async () => {
    const one = await prepare({ asset: 'ETH', toAddress: recipient, amount: '0.001', idempotencyKey: 'sign-race-1' });
    const two = await prepare({ asset: 'ETH', toAddress: recipient, amount: '0.001', idempotencyKey: 'sign-race-2' });
    const [a, b, c] = await Promise.all([
      api('POST', `/withdrawals/${one.body.id}/sign`),
      api('POST', `/withdrawals/${one.body.id}/sign`),
      api('POST', `/withdrawals/${two.body.id}/sign`),
    ]);
    expect([a.status, b.status, c.status]).toEqual([200, 200, 200]);
    expect(a.body.txHash).toBe(b.body.txHash);
    const history = (await api('GET', `/withdrawals/${one.body.id}`)).body.history.map((h: { status: string }) => h.status);
    expect(history).toEqual(['prepared', 'signed']);
    const nonces = await t.db('withdrawals').whereIn('id', [one.body.id, two.body.id]).orderBy('id').pluck('unsigned_tx');
    expect(nonces[0].payload.nonce).not.toBe(nonces[1].payload.nonce);
    for (const id of [one.body.id, two.body.id]) expect((await api('POST', `/withdrawals/${id}/broadcast`)).body.status).toBe('broadcast');
    const claims = await t.db('wallets').where({ id: walletId }).first('signing_claim');
    expect(claims.signing_claim).toBeNull();
    await round(1);
  });

  it('serves GET /v1/events while a sign or a broadcast waits on a slow node (no transaction is open across node calls)', async () => {
    let hold: string | null = null;
    let arrived: () => void = () => undefined;
    let release: () => void = () => undefined;
    const proxy = await startRpcProxy(anvil.url, {
      before: (c) => {
        if (c.method !== hold) return;
        hold = null;
        arrived();
        return new Promise<undefined>((r) => {
          release = () => r(undefined);
        });
      },
    });
    const slow = await startTestApp(
      t.db,
      { chains: [{ ...settings, rpcUrl: proxy.url }], rateLimit: { writesPerKeyPerMinute: 1000 } },
      masterKey,
    );
    const feed = async () => {
      const ids: string[] = [];
      for (let after = '0'; ; ) {
        const page = (await call(app.url, 'GET', `/v1/events?after=${after}&limit=1000`, { key: s.rootKey })).body;
        ids.push(...page.events.map((e: { id: string }) => e.id));
        if (!page.hasMore) return ids;
        after = page.next;
      }
    };
    /** Starts `request` on the slow app, holding `method` at the node; an event committed meanwhile is served. */
    const whileHeld = async (method: string, request: () => Promise<{ status: number; body: any }>) => {
      hold = method;
      const held = new Promise<void>((r) => {
        arrived = r;
      });
      const pending = request();
      await held;
      const recorded = await recordDeposit(t.db, s.companyId, walletId, 'deposit.detected', '0.5');
      // The feed serves below the oldest transaction running anywhere in the cluster, and other
      // test files share this PostgreSQL: wait for theirs to end, with the node call still held.
      // A transaction held open across that call would keep the event out until the release. (A
      // suite seeding its history in one long statement beside this one held it 10 s and more.)
      const served = await eventually(feed, (ids) => ids.includes(recorded.envelope.id), 60_000, 250);
      release();
      const answer = await pending;
      expect(served).toContain(recorded.envelope.id);
      return answer;
    };
    try {
      const prepared = await prepare({ asset: 'ETH', toAddress: recipient, amount: '0.001', idempotencyKey: 'slow-node-1' });
      const path = `/withdrawals/${prepared.body.id}`;
      const signed = await whileHeld('eth_getTransactionCount', () => call(slow.url, 'POST', `/v1${path}/sign`, { key: s.rootKey }));
      expect(signed.body).toMatchObject({ status: 'signed' });
      const sent = await whileHeld('eth_sendRawTransaction', () => call(slow.url, 'POST', `/v1${path}/broadcast`, { key: s.rootKey }));
      expect(sent.body).toMatchObject({ status: 'broadcast', txHash: signed.body.txHash });
      expect(await t.db('withdrawals').where({ id: prepared.body.id }).first('send_claim')).toEqual({ send_claim: null });
      await round(1);
    } finally {
      await slow.close();
      await proxy.close();
    }
  }, 180_000);

  it('accepts a transaction signed elsewhere only when it pays exactly the prepared intent', async () => {
    const prepared = await prepare({ asset: 'USDC', toAddress: recipient, amount: '3', idempotencyKey: 'ext-1' });
    const p = prepared.body.unsignedTransaction.payload;
    const row = await t.db('wallets').where({ id: walletId }).first();
    const mnemonic = masterKey.open(row.secret_envelope, `wallet:${walletId}`).toString('utf8');
    const key = HDNodeWallet.fromSeed(mnemonicToSeed(mnemonic)).derivePath(prepared.body.unsignedTransaction.signers[0].derivationPath);
    const sign = (data: string) =>
      key.signTransaction({
        type: 2,
        chainId: BigInt(p.chainId),
        nonce: p.nonce,
        to: p.to,
        value: BigInt(p.value),
        data,
        gasLimit: BigInt(p.gasLimit),
        maxFeePerGas: BigInt(p.maxFeePerGas),
        maxPriorityFeePerGas: BigInt(p.maxPriorityFeePerGas),
      });
    const word = (hex: string) => hex.slice(2).toLowerCase().padStart(64, '0');
    const otherRecipient = `0xa9059cbb${word('0x2222222222222222222222222222222222222222')}${3_000_000n.toString(16).padStart(64, '0')}`;
    const otherAmount = `0xa9059cbb${word(recipient)}${3_000_001n.toString(16).padStart(64, '0')}`;
    for (const data of [otherRecipient, otherAmount]) {
      const r = await api('POST', `/withdrawals/${prepared.body.id}/broadcast`, { signedTransaction: await sign(data) });
      expect(r.status).toBe(422);
      expect(r.body.message).toMatch(/does not pay the prepared withdrawal: its call data/);
    }
    const garbage = await api('POST', `/withdrawals/${prepared.body.id}/broadcast`, { signedTransaction: '0xdeadbeef' });
    expect(garbage.status).toBe(422);
    expect(garbage.body.message).toMatch(/^signedTransaction is not a serialized, signed EVM transaction: /);
    expect((await api('GET', `/withdrawals/${prepared.body.id}`)).body.status).toBe('prepared');

    const good = await sign(p.data);
    const sent = await api('POST', `/withdrawals/${prepared.body.id}/broadcast`, { signedTransaction: good });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ status: 'broadcast', signedBy: 'external', txHash: Transaction.from(good).hash });
    await round(1);
    expect((await api('GET', `/withdrawals/${prepared.body.id}`)).body.status).toBe('confirmed');

    // A transaction already mined for an earlier withdrawal with the same intent pays nothing new.
    const earlier = await t.db('withdrawals').where({ idempotency_key: 'usdc-1' }).first('signed_tx');
    const same = await prepare({ asset: 'USDC', toAddress: recipient, amount: '12.345678', idempotencyKey: 'usdc-replay' });
    const replay = await api('POST', `/withdrawals/${same.body.id}/broadcast`, { signedTransaction: earlier.signed_tx });
    expect(replay.status).toBe(422);
    expect(replay.body.message).toMatch(/its nonce is \d+; the next free nonce of the source is \d+/);
    expect((await api('GET', `/withdrawals/${same.body.id}`)).body.status).toBe('prepared');
    await api('POST', `/withdrawals/${same.body.id}/cancel`);
  });

  it('keeps a token withdrawal broadcast when its receipt lacks the matching Transfer log', async () => {
    await usdc.setQuirks({ quiet: true });
    try {
      const prepared = await prepare({ asset: 'USDC', toAddress: recipient, amount: '1', idempotencyKey: 'quiet-1' });
      const sent = await api('POST', `/withdrawals/${prepared.body.id}/broadcast`);
      expect((await anvil.receipt(sent.body.txHash)).status).toBe('0x1');
      await round(3);
      const view = (await api('GET', `/withdrawals/${prepared.body.id}`)).body;
      expect(view.status).toBe('broadcast');
      expect((await events('withdrawal.confirmed')).some((e) => e.data.withdrawalId === prepared.body.id)).toBe(false);
    } finally {
      await usdc.setQuirks({});
    }
  });

  it('ends a reverted withdrawal rejected, failed_on_chain, with the fee it burnt', async () => {
    const prepared = await prepare({ asset: 'USDC', toAddress: recipient, amount: '2', idempotencyKey: 'revert-1' });
    const signed = await api('POST', `/withdrawals/${prepared.body.id}/sign`);
    expect(signed.body.status).toBe('signed');
    await usdc.setQuirks({ paused: true });
    try {
      await api('POST', `/withdrawals/${prepared.body.id}/broadcast`);
      expect((await anvil.receipt(signed.body.txHash)).status).toBe('0x0');
      await round(1);
    } finally {
      await usdc.setQuirks({});
    }
    const view = (await api('GET', `/withdrawals/${prepared.body.id}`)).body;
    expect(view).toMatchObject({ status: 'rejected', reason: 'failed_on_chain' });
    expect(view.fee).not.toBeNull();
    const rejected = (await events('withdrawal.rejected')).filter((e) => e.data.withdrawalId === prepared.body.id);
    expect(rejected).toHaveLength(1);
    expectSchema('EventEnvelope', rejected[0]);
    expect(rejected[0].data).toMatchObject({ status: 'rejected', reason: 'failed_on_chain', txHash: signed.body.txHash });
    expect(rejected[0].data.fee).toBeUndefined();
    expect(rejected[0].data.confirmations).toBeUndefined();
  });

  it('follows a withdrawal a reorg removed: sent again and confirmed once, or rejected as reorg when its nonce went elsewhere', async () => {
    const send = async (key: string) => {
      const prepared = await prepare({ asset: 'ETH', toAddress: recipient, amount: '0.002', idempotencyKey: key });
      const sent = await api('POST', `/withdrawals/${prepared.body.id}/broadcast`);
      expect(sent.body.status).toBe('broadcast');
      await round(0); // seen in a block: 1 confirmation of 2
      expect((await api('GET', `/withdrawals/${prepared.body.id}`)).body.confirmations).toBe(1);
      return { id: prepared.body.id as number, txHash: sent.body.txHash as string };
    };
    const mine = (type: string, id: number) => events(type).then((all) => all.filter((e) => e.data.withdrawalId === id));

    // Mined again: the tracker sends the same bytes and it confirms, announced once.
    const again = await send('reorg-again');
    await anvil.rpc('anvil_reorg', [1, []]);
    expect(await anvil.rpc('eth_getTransactionByHash', [again.txHash])).toBeNull(); // gone: only a re-send brings it back
    await round(0); // the follower rewinds; the tracker finds the transaction gone, nonce free: re-sent
    expect((await anvil.receipt(again.txHash)).status).toBe('0x1');
    await round(1);
    expect((await api('GET', `/withdrawals/${again.id}`)).body.status).toBe('confirmed');
    expect(await mine('withdrawal.broadcast', again.id)).toHaveLength(1);
    expect(await mine('withdrawal.confirmed', again.id)).toHaveLength(1);
    expect(await mine('withdrawal.rejected', again.id)).toHaveLength(0);

    // Its nonce taken by another transaction of the same key before it came back: rejected, reorg.
    const lost = await send('reorg-lost');
    const { unsigned_tx } = await t.db('withdrawals').where({ id: lost.id }).first('unsigned_tx');
    await anvil.rpc('anvil_reorg', [1, []]);
    const row = await t.db('wallets').where({ id: walletId }).first();
    const mnemonic = masterKey.open(row.secret_envelope, `wallet:${walletId}`).toString('utf8');
    const key = HDNodeWallet.fromSeed(mnemonicToSeed(mnemonic)).derivePath("m/44'/60'/0'/0/0");
    const p = unsigned_tx.payload;
    const rival = await key.signTransaction({
      type: 2,
      chainId: BigInt(p.chainId),
      nonce: p.nonce,
      to: second,
      value: 1n,
      gasLimit: 21_000n,
      maxFeePerGas: BigInt(p.maxFeePerGas),
      maxPriorityFeePerGas: BigInt(p.maxPriorityFeePerGas),
    });
    await anvil.rpc('eth_sendRawTransaction', [rival]);
    await round(1);
    const view = (await api('GET', `/withdrawals/${lost.id}`)).body;
    expect(view).toMatchObject({ status: 'rejected', reason: 'reorg' });
    const rejected = await mine('withdrawal.rejected', lost.id);
    expect(rejected.map((e) => e.data.reason)).toEqual(['reorg']);
    expect(await mine('withdrawal.confirmed', lost.id)).toHaveLength(0);
  });

  it('lists withdrawals beside deposits in GET /v1/transactions (direction outgoing), by hash too, paging through both', async () => {
    const all = await api('GET', `/transactions?walletId=${walletId}&limit=200`);
    expect(all.status).toBe(200);
    expectSchema('TransactionList', all.body);
    type Tx = { kind: string; id: number; direction: string; withdrawalId: number | null; txHash: string };
    const rows: Tx[] = all.body.transactions;
    const deposits = rows.filter((r) => r.kind === 'deposit');
    expect(deposits.length).toBeGreaterThan(0);
    expect(deposits.every((d) => d.direction === 'incoming' && d.withdrawalId === null)).toBe(true);
    // Every withdrawal whose transaction exists (signed on), once, as outgoing.
    const sent = await t
      .db('withdrawals')
      .where({ wallet_id: walletId })
      .whereIn('status', ['signed', 'broadcast', 'confirmed', 'rejected'])
      .orderBy('id')
      .pluck('id');
    expect(sent.length).toBeGreaterThan(1);
    const outgoing = rows.filter((r) => r.kind === 'withdrawal');
    expect(outgoing.map((r) => r.withdrawalId).sort((a, b) => (a as number) - (b as number))).toEqual(sent);
    expect(outgoing.every((r) => r.direction === 'outgoing')).toBe(true);

    const native = await t.db('withdrawals').where({ idempotency_key: 'native-1' }).first();
    const found = await api('GET', `/transactions?search=${native.tx_hash.toUpperCase().replace('0X', '0x')}`);
    expectSchema('TransactionList', found.body);
    expect(found.body.transactions).toEqual([
      expect.objectContaining({
        kind: 'withdrawal',
        id: native.id,
        withdrawalId: native.id,
        walletId,
        direction: 'outgoing',
        txHash: native.tx_hash,
        amount: '0.25',
        asset: { key: 'ethereum:devnet:eth', symbol: 'ETH', decimals: 18, contractAddress: null },
        fromAddress: source,
        toAddress: recipient,
        status: 'confirmed',
      }),
    ]);

    // Pages of 2 walk the same rows in the same order as one page.
    const paged: string[] = [];
    let next: string | null = null;
    do {
      const page: { body: { transactions: Tx[]; next: string | null } } = await api(
        'GET',
        `/transactions?walletId=${walletId}&limit=2${next ? `&after=${next}` : ''}`,
      );
      paged.push(...page.body.transactions.map((r) => `${r.kind}:${r.id}`));
      next = page.body.next;
    } while (next);
    expect(paged).toEqual(rows.map((r) => `${r.kind}:${r.id}`));
    expect((await api('GET', '/transactions?after=not-a-cursor')).status).toBe(400);
  });

  it('validates a withdrawal request as prepare does: a foreign fromAddress is 422, a 5,000-digit amount 400', async () => {
    const count = async () => Number((await t.db('withdrawal_requests').count({ n: '*' }))[0]?.n);
    const before = await count();
    const otherWallet = (await api('POST', '/wallets', { name: 'other', chain: 'ethereum', network: 'devnet' })).body.id;
    const otherWalletAddress = (await api('POST', `/wallets/${otherWallet}/addresses`)).body.address;
    const stranger = await seedCompany(t.db, 'paid', 'Stranger');
    const strangerWallet = (
      await call(app.url, 'POST', '/v1/wallets', { key: stranger.rootKey, body: { name: 's', chain: 'ethereum', network: 'devnet' } })
    ).body.id;
    const strangerAddress = (await call(app.url, 'POST', `/v1/wallets/${strangerWallet}/addresses`, { key: stranger.rootKey })).body
      .address;
    const propose = (extra: Record<string, unknown>) =>
      api('POST', '/withdrawal-requests', { walletId, asset: 'ETH', toAddress: recipient, amount: '0.1', ...extra });
    for (const from of [otherWalletAddress, strangerAddress]) {
      const r = await propose({ fromAddress: from });
      expect({ status: r.status, code: r.body.code }).toEqual({ status: 422, code: 'unprocessable' });
      expect(r.body.message).toBe(`fromAddress ${from} is not an address of wallet ${walletId}`);
    }
    const huge = '9'.repeat(5000);
    const tooBig = await propose({ amount: huge });
    expect({ status: tooBig.status, code: tooBig.body.code }).toEqual({ status: 400, code: 'invalid_amount' });
    expect(tooBig.body.message).toMatch(/^amount exceeds the largest amount a ethereum transfer of ETH can carry/);
    expect(tooBig.body.message.length).toBeLessThan(200);
    // One base unit past a uint256 is refused too, and prepare says the same as the request.
    const justOver = fromBaseUnits(1n << 256n, 18);
    expect((await propose({ amount: justOver })).body.code).toBe('invalid_amount');
    const prepared = await prepare({ asset: 'ETH', toAddress: recipient, amount: huge, idempotencyKey: 'huge-1' });
    expect({ status: prepared.status, code: prepared.body.code }).toEqual({ status: 400, code: 'invalid_amount' });
    expect(await count()).toBe(before);
    // The wallet's own second address is a valid source.
    const own = await propose({ fromAddress: second });
    expect(own.status).toBe(201);
    expect(own.body.fromAddress).toBe(second);
  });

  it("hides an archived wallet's transactions, withdrawals and withdrawal requests", async () => {
    const oldWallet = (await api('POST', '/wallets', { name: 'old', chain: 'ethereum', network: 'devnet' })).body.id;
    const oldAddress = (await api('POST', `/wallets/${oldWallet}/addresses`)).body.address;
    const depositHash = await anvil.send(oldAddress, 10n ** 18n);
    await round(2);
    const w = await api('POST', `/wallets/${oldWallet}/withdrawals`, {
      asset: 'ETH',
      toAddress: recipient,
      amount: '0.1',
      idempotencyKey: 'old-1',
    });
    expect(w.status).toBe(201);
    const withdrawalHash = (await api('POST', `/withdrawals/${w.body.id}/broadcast`)).body.txHash;
    const request = await api('POST', '/withdrawal-requests', { walletId: oldWallet, asset: 'ETH', toAddress: recipient, amount: '0.2' });
    expect(request.status).toBe(201);
    const seen = async () => ({
      deposit: (await api('GET', `/transactions?search=${depositHash}`)).body.transactions.length,
      withdrawal: (await api('GET', `/transactions?search=${withdrawalHash}`)).body.transactions.length,
      listed: (await api('GET', '/transactions?limit=200')).body.transactions.filter((x: { walletId: number }) => x.walletId === oldWallet)
        .length,
      requests: (await api('GET', '/withdrawal-requests')).body.requests.filter((x: { walletId: number }) => x.walletId === oldWallet)
        .length,
      withdrawalStatus: (await api('GET', `/withdrawals/${w.body.id}`)).status,
      requestStatus: (await api('GET', `/withdrawal-requests/${request.body.id}`)).status,
    });
    expect(await seen()).toEqual({ deposit: 1, withdrawal: 1, listed: 2, requests: 1, withdrawalStatus: 200, requestStatus: 200 });
    expect((await api('DELETE', `/wallets/${oldWallet}`)).status).toBe(204);
    expect(await seen()).toEqual({ deposit: 0, withdrawal: 0, listed: 0, requests: 0, withdrawalStatus: 404, requestStatus: 404 });
  });

  it('limits value-moving writes to 20 a minute per key and endpoint (429 with Retry-After)', async () => {
    const limitedApp = await startTestApp(t.db, { chains: [settings] }, masterKey);
    try {
      const { key } = await keyFor(t.db, s.companyId, { actions: ['withdrawals:create', 'withdrawals:read'] });
      const post = (path: string, body: unknown) => call(limitedApp.url, 'POST', `/v1${path}`, { key, body });
      const statuses: number[] = [];
      for (let i = 0; i < 21; i++) statuses.push((await post(`/wallets/${walletId}/withdrawals`, { asset: 'ETH' })).status);
      expect(statuses.slice(0, 20)).toEqual(Array(20).fill(400));
      expect(statuses[20]).toBe(429);
      const limited = await post(`/wallets/${walletId}/withdrawals`, { asset: 'ETH' });
      expect(limited.body).toMatchObject({ statusCode: 429, error: 'Too Many Requests', code: 'rate_limited' });
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      // Another endpoint has its own budget.
      expect((await post('/withdrawals/999999/sign', {})).status).toBe(404);
    } finally {
      await limitedApp.close();
    }
  });
});
