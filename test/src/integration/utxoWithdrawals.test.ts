import { randomBytes } from 'node:crypto';
import { type ChainSettings, MasterKey, fromBaseUnits, mnemonicToSeed } from '@walletd/core';
import { createDetectPool, type DetectPool, type Follower } from '@walletd/indexer';
import { type UtxoTxPayload, addressOfScript, bip32, bitcoin, scriptOf, utxoMatchKey, utxoNetwork } from '@walletd/plugin-utxo';
import {
  type RegtestNode,
  type Seeded,
  type TestApp,
  type TestDatabase,
  call,
  createTestDatabase,
  describeWithLitecoind,
  seedCompany,
  startLitecoind,
  startTestApp,
  expectSchema,
  testFollower,
  asLitecoind,
} from '@walletd/test-harness';

/**
 * Bitcoin withdrawals through the API on a regtest node: coins from several wallet addresses,
 * several recipients in one transaction, change back to the wallet, the exact on-chain fee, and
 * two concurrent withdrawals that never spend the same coin.
 */
describeWithLitecoind('UTXO withdrawals on a regtest node', () => {
  let t: TestDatabase;
  let node: RegtestNode;
  let pool: DetectPool;
  let app: TestApp;
  let s: Seeded;
  let follower: Follower;
  let dogeFollower: Follower;
  let walletId: number;
  const masterKey = new MasterKey(randomBytes(32));
  const net = utxoNetwork('bitcoin', 'regtest');
  const nodeParams = asLitecoind(net);
  /** Between the node's encoding (litecoin regtest) and walletd's (bitcoin regtest): same script. */
  const toNode = (address: string) => addressOfScript(nodeParams, scriptOf(net, address)) as string;
  const fromNode = (address: string) => addressOfScript(net, scriptOf(nodeParams, address)) as string;
  const api = (method: string, path: string, body?: unknown) => call(app.url, method, `/v1${path}`, { key: s.rootKey, body });
  const events = async (type: string) =>
    (await t.db('events').where({ type }).orderBy('seq').pluck('body')).map((b: string) => JSON.parse(b));
  const round = async (blocks: number) => {
    if (blocks) await node.mine(blocks);
    await follower.tick();
    await dogeFollower.tick();
  };

  beforeAll(async () => {
    t = await createTestDatabase();
    node = await startLitecoind();
    pool = createDetectPool(1);
    const settings: ChainSettings = {
      chain: 'bitcoin',
      network: 'regtest',
      rpcUrl: node.url,
      confirmations: 1,
      startBlock: (await node.rpc<number>('getblockcount')) + 1,
    };
    const doge: ChainSettings = { ...settings, chain: 'dogecoin' };
    app = await startTestApp(t.db, { chains: [settings, doge] }, masterKey);
    dogeFollower = testFollower(t.db, pool, doge);
    follower = testFollower(t.db, pool, settings);
    s = await seedCompany(t.db);
    walletId = (await api('POST', '/wallets', { name: 'btc', chain: 'bitcoin', network: 'regtest' })).body.id;
    const a = (await api('POST', `/wallets/${walletId}/addresses`)).body.address;
    const b = (await api('POST', `/wallets/${walletId}/addresses`)).body.address;
    // 0.6 + 0.5 on the primary, 0.4 on the second address.
    for (const [to, amount] of [
      [a, '0.6'],
      [a, '0.5'],
      [b, '0.4'],
    ])
      await node.rpc('sendtoaddress', [toNode(to), amount]);
    await round(1);
  });
  afterAll(async () => {
    await app.close();
    await pool.close();
    await node.stop();
    await t.drop();
  });

  it('pays two recipients in one transaction from coins of two addresses, change to the change address (never a deposit), exact fee', async () => {
    const [r1, r2] = [fromNode(await node.rpc<string>('getnewaddress')), fromNode(await node.rpc<string>('getnewaddress'))];
    const prepared = await api('POST', `/wallets/${walletId}/withdrawals`, {
      asset: 'BTC',
      outputs: [
        { toAddress: r1, amount: '0.9' },
        { toAddress: r2, amount: '0.35' },
      ],
      idempotencyKey: 'multi-1',
    });
    expect(prepared.status).toBe(201);
    expectSchema('Withdrawal', prepared.body);
    expect(prepared.body).toMatchObject({
      amount: '1.25',
      toAddress: null,
      outputs: [
        { toAddress: r1, amount: '0.9' },
        { toAddress: r2, amount: '0.35' },
      ],
    });
    // 1.25 needs all three coins (1.1 on the primary is not enough).
    expect(prepared.body.sourceAddresses).toHaveLength(2);

    const sent = await api('POST', `/withdrawals/${prepared.body.id}/broadcast`);
    expect(sent.status).toBe(200);
    expect(sent.body.status).toBe('broadcast');
    const txid: string = sent.body.txHash;
    const tx = await node.rpc<{ vin: { txid: string; vout: number }[]; vout: { value: number; scriptPubKey: { hex: string } }[] }>(
      'getrawtransaction',
      [txid, true],
    );
    const row = await t.db('withdrawals').where({ id: prepared.body.id }).first('unsigned_tx');
    const payload = row.unsigned_tx.payload as UtxoTxPayload;
    expect(tx.vin.map((i) => `${i.txid}:${i.vout}`).sort()).toEqual(payload.inputs.map((c) => `${c.txid}:${c.vout}`).sort());
    // Change goes to the wallet's internal change address (BIP-84 change branch), never handed out.
    const change = await t.db('addresses').where({ wallet_id: walletId, kind: 'change' }).first('address', 'derivation_path');
    expect(change.derivation_path).toBe("m/84'/1'/0'/1/0");
    expect(payload.outputs.map((o) => [o.address, o.value, o.change])).toEqual([
      [r1, '90000000', false],
      [r2, '35000000', false],
      [change.address, expect.any(String), true],
    ]);
    const listed = (await api('GET', `/wallets/${walletId}/addresses`)).body.addresses.map((a: { address: string }) => a.address);
    expect(listed).not.toContain(change.address);
    const inputs = payload.inputs.reduce((sum, c) => sum + BigInt(c.value), 0n);
    const outputs = payload.outputs.reduce((sum, o) => sum + BigInt(o.value), 0n);
    expect(inputs).toBe(150_000_000n);

    await round(1);
    const confirmed = (await events('withdrawal.confirmed')).filter((e) => e.data.withdrawalId === prepared.body.id);
    expect(confirmed).toHaveLength(1);
    expect(confirmed[0].data).toMatchObject({
      status: 'confirmed',
      txHash: txid,
      amount: '1.25',
      outputs: [
        { toAddress: r1, amount: '0.9' },
        { toAddress: r2, amount: '0.35' },
      ],
      confirmations: 1,
      fee: { amount: fromBaseUnits(inputs - outputs, 8), asset: { key: 'bitcoin:regtest:btc' } },
    });
    expect(confirmed[0].data.sourceAddresses).toEqual(prepared.body.sourceAddresses);
    expect(confirmed[0].data.toAddress).toBeUndefined();
    // The node agrees on what the recipients got.
    const paid = await node.rpc<number>('getreceivedbyaddress', [toNode(r1), 1]);
    expect(String(paid)).toBe('0.9');
    await ownChangeIsNoDeposit(txid);

    // The change coin is the wallet's only coin now: the next withdrawal spends it (signed with
    // the change branch's key), and its own change is no deposit either.
    const next = await api('POST', `/wallets/${walletId}/withdrawals`, {
      asset: 'BTC',
      toAddress: r1,
      amount: '0.1',
      idempotencyKey: 'from-change',
    });
    expect(next.status).toBe(201);
    expect(next.body.sourceAddresses).toEqual([change.address]);
    const nextSent = await api('POST', `/withdrawals/${next.body.id}/broadcast`);
    expect(nextSent.body.status).toBe('broadcast');
    await round(1);
    expect((await events('withdrawal.confirmed')).some((e) => e.data.withdrawalId === next.body.id)).toBe(true);
    await ownChangeIsNoDeposit(nextSent.body.txHash);
  });

  /** Regression (issue 11): the wallet's own change was announced as a deposit and counted as incoming. */
  async function ownChangeIsNoDeposit(txid: string) {
    for (const type of ['deposit.detected', 'deposit.confirmed'])
      expect((await events(type)).filter((e) => e.data.txHash === txid)).toEqual([]);
    const balances = await api('GET', `/wallets/${walletId}/balances?onchain=true`);
    expect(balances.status).toBe(200);
    const btc = balances.body.balances.find((b: { asset: { key: string } }) => b.asset.key === 'bitcoin:regtest:btc');
    expect(btc.confirmed).toBe(btc.onchain);
  }

  it('never lets two concurrent withdrawals spend the same coin', async () => {
    for (const amount of ['0.3', '0.3', '0.3']) {
      const primary = (await api('GET', `/wallets/${walletId}/addresses`)).body.addresses[0].address;
      await node.rpc('sendtoaddress', [toNode(primary), amount]);
    }
    await round(1);
    const to = fromNode(await node.rpc<string>('getnewaddress'));
    const [a, b] = (await Promise.all(
      ['c1', 'c2'].map(async (key) => {
        const p = await api('POST', `/wallets/${walletId}/withdrawals`, {
          asset: 'BTC',
          toAddress: to,
          amount: '0.2',
          idempotencyKey: key,
        });
        expect(p.status).toBe(201);
        return api('POST', `/withdrawals/${p.body.id}/broadcast`);
      }),
    )) as [Awaited<ReturnType<typeof api>>, Awaited<ReturnType<typeof api>>];
    expect([a.body.status, b.body.status]).toEqual(['broadcast', 'broadcast']);
    const inputsOf = async (txid: string) =>
      (await node.rpc<{ vin: { txid: string; vout: number }[] }>('getrawtransaction', [txid, true])).vin.map((i) => `${i.txid}:${i.vout}`);
    const [ia, ib] = [await inputsOf(a.body.txHash), await inputsOf(b.body.txHash)];
    expect(ia.filter((x) => ib.includes(x))).toEqual([]);
    expect(await node.rpc<string[]>('getrawmempool')).toEqual(expect.arrayContaining([a.body.txHash, b.body.txHash]));
    await round(1);
    for (const w of [a, b]) expect((await api('GET', `/withdrawals/${w.body.id}`)).body.status).toBe('confirmed');
    expect(utxoMatchKey('bitcoin', 'regtest', to)).toMatch(/^0014/);
  });

  it('signs legacy P2PKH inputs (dogecoin) over their previous transactions, fetched by block hash', async () => {
    const w = (await api('POST', '/wallets', { name: 'doge', chain: 'dogecoin', network: 'regtest' })).body.id;
    const address = (await api('POST', `/wallets/${w}/addresses`)).body.address;
    expect(address).toMatch(/^[mn]/);
    await node.rpc('sendtoaddress', [address, '2']); // legacy regtest addresses read the same on the node
    await round(1);
    const to = await node.rpc<string>('getnewaddress', ['', 'legacy']);
    const prepared = await api('POST', `/wallets/${w}/withdrawals`, {
      asset: 'DOGE',
      toAddress: to,
      amount: '0.5',
      idempotencyKey: 'doge-1',
    });
    expect(prepared.status).toBe(201);
    const sent = await api('POST', `/withdrawals/${prepared.body.id}/broadcast`);
    expect(sent.body.status).toBe('broadcast');
    await round(1);
    const view = (await api('GET', `/withdrawals/${prepared.body.id}`)).body;
    expect(view).toMatchObject({ status: 'confirmed', amount: '0.5', toAddress: to, sourceAddresses: [address] });
    const row = await t.db('withdrawals').where({ id: prepared.body.id }).first('unsigned_tx');
    const payload = row.unsigned_tx.payload as UtxoTxPayload;
    const fee = payload.inputs.reduce((n, c) => n + BigInt(c.value), 0n) - payload.outputs.reduce((n, o) => n + BigInt(o.value), 0n);
    expect(view.fee.amount).toBe(fromBaseUnits(fee, 8));
    // At least the floor of 1 000 base units per byte for a one-input, two-output P2PKH transaction.
    expect(fee).toBeGreaterThanOrEqual(1000n * 226n);
  });

  it('rejects a broadcast withdrawal whose coins a conflicting transaction spent (mempool_dropped), with the event', async () => {
    const primary = (await api('GET', `/wallets/${walletId}/addresses`)).body.addresses[0];
    await node.rpc('sendtoaddress', [toNode(primary.address), '0.25']);
    await round(1);
    const to = fromNode(await node.rpc<string>('getnewaddress'));
    const prepared = await api('POST', `/wallets/${walletId}/withdrawals`, {
      asset: 'BTC',
      toAddress: to,
      amount: '0.1',
      fromAddress: primary.address,
      idempotencyKey: 'conflict-1',
    });
    const sent = await api('POST', `/withdrawals/${prepared.body.id}/broadcast`);
    expect(sent.body.status).toBe('broadcast');
    const row = await t.db('withdrawals').where({ id: prepared.body.id }).first('unsigned_tx');
    const coin = (row.unsigned_tx.payload as UtxoTxPayload).inputs[0] as UtxoTxPayload['inputs'][number];

    // The same coin spent again with a much higher fee (BIP-125), signed with the wallet's own key.
    const wallet = await t.db('wallets').where({ id: walletId }).first();
    const mnemonic = masterKey.open(wallet.secret_envelope, `wallet:${walletId}`).toString('utf8');
    const owner = (await t.db('addresses').where({ address: coin.address }).first('derivation_path')).derivation_path;
    const key = bip32.fromSeed(mnemonicToSeed(mnemonic), net.params).derivePath(owner);
    const psbt = new bitcoin.Psbt({ network: net.params });
    psbt.addInput({
      hash: coin.txid,
      index: coin.vout,
      sequence: 0xfffffffd,
      witnessUtxo: { script: Buffer.from(coin.script, 'hex'), value: BigInt(coin.value) },
    });
    psbt.addOutput({ script: scriptOf(net, fromNode(await node.rpc<string>('getnewaddress'))), value: BigInt(coin.value) - 100_000n });
    psbt.signInput(0, key).finalizeAllInputs();
    const rival = await node.rpc<string>('sendrawtransaction', [psbt.extractTransaction().toHex()]);
    expect(await node.rpc<string[]>('getrawmempool')).not.toContain(sent.body.txHash);

    await round(0);
    const view = (await api('GET', `/withdrawals/${prepared.body.id}`)).body;
    expect(view).toMatchObject({ status: 'rejected', reason: 'mempool_dropped' });
    const rejected = (await events('withdrawal.rejected')).filter((e) => e.data.withdrawalId === prepared.body.id);
    expect(rejected.map((e) => [e.data.reason, e.data.txHash])).toEqual([['mempool_dropped', sent.body.txHash]]);
    await round(1);
    expect((await api('GET', `/withdrawals/${prepared.body.id}`)).body.status).toBe('rejected');
    expect(await node.rpc<string[]>('getrawmempool')).not.toContain(rival);
  });

  it('pays a taproot address: the output is OP_1 <key> on chain and the estimate covers its 43 vbytes', async () => {
    const funded = (await api('POST', `/wallets/${walletId}/addresses`)).body.address;
    await node.rpc('sendtoaddress', [toNode(funded), '0.3']);
    await round(1);
    // BIP-86's first output key, on regtest.
    const key = 'a60869f0dbcf1dc659c9cecbaf8050135ea9e8cdc487053f1dc6880949dc684c';
    const taproot = addressOfScript(net, Buffer.from(`5120${key}`, 'hex')) as string;
    expect(taproot).toMatch(/^bcrt1p/);
    const prepared = await api('POST', `/wallets/${walletId}/withdrawals`, {
      asset: 'BTC',
      toAddress: taproot,
      amount: '0.1',
      fromAddress: funded,
      idempotencyKey: 'taproot-1',
    });
    expect(prepared.status).toBe(201);
    const sent = await api('POST', `/withdrawals/${prepared.body.id}/broadcast`);
    expect(sent.status).toBe(200);
    const tx = await node.rpc<{ vsize: number; vout: { value: number; scriptPubKey: { hex: string; type: string } }[] }>(
      'getrawtransaction',
      [sent.body.txHash, true],
    );
    const paid = tx.vout.find((o) => o.scriptPubKey.hex === `5120${key}`);
    expect(paid && String(paid.value)).toBe('0.1');
    const row = await t.db('withdrawals').where({ id: prepared.body.id }).first('unsigned_tx');
    const payload = row.unsigned_tx.payload as UtxoTxPayload;
    // The estimate is never below what the node measures (it was 9 vbytes short per taproot output).
    expect(payload.vsize).toBeGreaterThanOrEqual(tx.vsize);
    expect(payload.vsize - tx.vsize).toBeLessThanOrEqual(2);
    await round(1);
    const confirmed = (await events('withdrawal.confirmed')).filter((e) => e.data.withdrawalId === prepared.body.id);
    expect(confirmed).toHaveLength(1);
  });
});
