import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { type ChainSettings, MasterKey, fromBaseUnits, toBaseUnits, tokenSigner } from '@walletd/core';
import { createDetectPool, type DetectPool, type Follower } from '@walletd/indexer';
import { addressOfPublicKey, addressOfScript, compressedKey, scriptOf, utxoNetwork } from '@walletd/plugin-utxo';
import {
  type RegtestNode,
  type Seeded,
  type SoftHsmToken,
  type TestApp,
  type TestDatabase,
  asLitecoind,
  call,
  createTestDatabase,
  describeWithLitecoind,
  describeWithSoftHsm,
  expectSchema,
  newSoftHsmToken,
  SOFTHSM_MODULE,
  softHsmKeySettings,
  seedCompany,
  startLitecoind,
  startTestApp,
  testFollower,
} from '@walletd/test-harness';

const btc = (units: bigint) => fromBaseUnits(units, 8);
const sat = (s: string) => toBaseUnits(s, 8);

interface NodeTx {
  vin: { txid: string; vout: number; txinwitness?: string[] }[];
  vout: { value: number; scriptPubKey: { hex: string } }[];
}

/**
 * Issue 45 §3 on bitcoin (a litecoind regtest node, the same P2WPKH scripts and sighash): an
 * address whose key pair is generated inside a SoftHSM2 token, funded, pays out from it
 * (`fromAddress`) with its input signed in the token (CKM_ECDSA, low-s r‖s that bitcoinjs encodes
 * as DER); a payout mixing it with the wallet's HD coins, and that payout's RBF speed-up, sign
 * their token input there too. Mined, the balances are exact through the API, each token
 * signature is counted in walletd_token_signatures_total and audited keyHeldIn: token.
 */
const describeBoth = (name: string, fn: () => void) => describeWithSoftHsm('SoftHSM2', () => describeWithLitecoind(name, fn));

describeBoth('bitcoin keys held in the token', () => {
  let t: TestDatabase;
  let node: RegtestNode;
  let pool: DetectPool;
  let app: TestApp;
  let s: Seeded;
  let follower: Follower;
  let token: SoftHsmToken;
  let walletId: number;
  let credited = 0n;
  const net = utxoNetwork('bitcoin', 'regtest');
  const nodeParams = asLitecoind(net);
  const toNode = (address: string) => addressOfScript(nodeParams, scriptOf(net, address)) as string;
  const fromNode = (address: string) => addressOfScript(net, scriptOf(nodeParams, address)) as string;
  const api = (method: string, path: string, body?: unknown) => call(app.url, method, `/v1${path}`, { key: s.rootKey, body });
  const balances = async () => {
    const res = await api('GET', `/wallets/${walletId}/balances?onchain=true`);
    expect(res.status).toBe(200);
    const b = res.body.balances.find((x: { asset: { key: string } }) => x.asset.key === 'bitcoin:regtest:btc');
    return { confirmed: b?.confirmed, reserved: b?.reserved, available: b?.available, onchain: b?.onchain };
  };
  const get = async (id: number) => {
    const res = await api('GET', `/withdrawals/${id}`);
    expect(res.status).toBe(200);
    expectSchema('Withdrawal', res.body);
    return res.body;
  };
  const rawTx = (txid: string) => node.rpc<NodeTx>('getrawtransaction', [txid, true]);
  const feeOf = async (txid: string) => sat(String((await node.rpc<{ fees: { base: number } }>('getmempoolentry', [txid])).fees.base));
  const tokenSignatures = async () =>
    Number(/^walletd_token_signatures_total\{curve="secp256k1"\} (\d+)$/m.exec(await (await fetch(`${app.url}/metrics`)).text())?.[1] ?? 0);
  /** The compressed public key of the token key labelled `label`, as it stands in a P2WPKH witness. */
  const tokenKey = (label: string) => {
    const held = tokenSigner({ module: SOFTHSM_MODULE, tokenLabel: token.label, pin: token.pin, keyLabel: label }, 'secp256k1');
    try {
      return { publicKey: held.publicKey(), ...addressOfPublicKey('bitcoin', 'regtest', held.publicKey()) };
    } finally {
      held.close();
    }
  };
  const fund = async (address: string, amount: string) => {
    await node.rpc('sendtoaddress', [toNode(address), amount]);
    await node.mine(1);
    await follower.tick();
    credited += sat(amount);
  };
  let held: { address: string; label: string; witnessKey: string };

  beforeAll(async () => {
    token = newSoftHsmToken(`utxo-${process.pid}`);
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
    app = await startTestApp(
      t.db,
      {
        chains: [settings],
        rateLimit: { writesPerKeyPerMinute: 1000 },
        masterKey: {
          pkcs11: softHsmKeySettings(token.label),
        },
      },
      new MasterKey(randomBytes(32)),
    );
    follower = testFollower(t.db, pool, settings);
    s = await seedCompany(t.db);
    walletId = (await api('POST', '/wallets', { name: 'btc-hot', chain: 'bitcoin', network: 'regtest' })).body.id;
  });
  afterAll(async () => {
    await app.close();
    await pool.close();
    await node.stop();
    await t.drop();
  });

  it('an address keyHeldIn token is the P2WPKH of the token key; a withdrawal from it is signed in the token, mined, counted and audited', async () => {
    const envelope = async () => (await t.db('wallets').where({ id: walletId }).first('secret_envelope')).secret_envelope;
    const sealed = JSON.stringify(await envelope());
    const made = await api('POST', `/wallets/${walletId}/addresses`, { label: 'hot', keyHeldIn: 'token' });
    expect(made.status).toBe(201);
    expectSchema('Address', made.body);
    const label = `walletd-address-${walletId}-${made.body.index}`;
    expect(made.body).toMatchObject({ keyHeldIn: 'token', path: `pkcs11:${label}`, label: 'hot' });
    const key = tokenKey(label);
    expect(made.body.address).toBe(key.address);
    expect(made.body.address).toMatch(/^bcrt1q[02-9ac-hj-np-z]{38}$/);
    held = { address: made.body.address, label, witnessKey: Buffer.from(compressedKey(key.publicKey)).toString('hex') };
    // No private key for it in the database: the row names the token's label, the wallet's sealed
    // secret is what it was, and the token's private key object is sensitive and never extractable.
    const row = await t.db('addresses').where({ id: made.body.id }).first();
    expect(row).toMatchObject({ key_label: label, derivation_path: `pkcs11:${label}`, match_key: key.matchKey });
    expect(JSON.stringify(await envelope())).toBe(sealed);
    const objects = execFileSync(
      'pkcs11-tool',
      ['--module', SOFTHSM_MODULE, '--token-label', token.label, '--pin', token.pin, '--list-objects', '--type', 'privkey'],
      { env: { ...process.env, SOFTHSM2_CONF: token.conf }, stdio: 'pipe' },
    ).toString();
    expect(objects).toMatch(new RegExp(`label: +${label}\\n.*\\n +Access: +sensitive, always sensitive, never extractable`));

    const hd = (await api('POST', `/wallets/${walletId}/addresses`)).body;
    expect(hd.keyHeldIn).toBeUndefined();
    await fund(hd.address, '1');
    await fund(held.address, '0.5');
    expect(await balances()).toMatchObject({ confirmed: '1.5', reserved: '0', onchain: '1.5' });

    const before = await tokenSignatures();
    const to = fromNode(await node.rpc<string>('getnewaddress'));
    const prepared = await api('POST', `/wallets/${walletId}/withdrawals`, {
      asset: 'BTC',
      toAddress: to,
      amount: '0.2',
      fromAddress: held.address,
      idempotencyKey: 'token-out-1',
    });
    expect(prepared.status).toBe(201);
    const sent = await api('POST', `/withdrawals/${prepared.body.id}/broadcast`);
    expect(sent.body.status).toBe('broadcast');
    const txHash: string = sent.body.txHash;
    const fee = await feeOf(txHash);
    // Its one input is the token address's coin, its witness the token's compressed key.
    const tx = await rawTx(txHash);
    expect(tx.vin).toHaveLength(1);
    expect(tx.vin[0]?.txinwitness?.[1]).toBe(held.witnessKey);
    expect(await tokenSignatures()).toBe(before + 1);

    await node.mine(1);
    await follower.tick();
    expect(await get(prepared.body.id)).toMatchObject({ status: 'confirmed', fromAddress: held.address, amount: '0.2', txHash });
    expect(await node.rpc<number>('getreceivedbyaddress', [toNode(to), 1])).toBe(0.2);
    credited -= sat('0.2') + fee;
    expect(await balances()).toEqual({ confirmed: btc(credited), reserved: '0', available: btc(credited), onchain: btc(credited) });
    const signed = await t
      .db('audit_log')
      .where({ action: 'withdrawal.signed', target_id: String(prepared.body.id) })
      .first();
    expect(signed.details).toMatchObject({ keyHeldIn: 'token', txHash });
  });

  it('a payout mixing a token-held coin and HD coins signs each with its own key; its RBF speed-up signs the token input in the token again', async () => {
    await fund(held.address, '0.4');
    // More than the HD coins hold: every coin of the wallet, the token's among them, is spent.
    const amount = credited - sat('0.01');
    const before = await tokenSignatures();
    const to = fromNode(await node.rpc<string>('getnewaddress'));
    const prepared = await api('POST', `/wallets/${walletId}/withdrawals`, {
      asset: 'BTC',
      toAddress: to,
      amount: btc(amount),
      idempotencyKey: 'token-mixed',
    });
    expect(prepared.status).toBe(201);
    const sent = await api('POST', `/withdrawals/${prepared.body.id}/broadcast`);
    expect(sent.body.status).toBe('broadcast');
    const original: string = sent.body.txHash;
    const witnessKeys = (await rawTx(original)).vin.map((i) => i.txinwitness?.[1]);
    expect(witnessKeys.length).toBeGreaterThanOrEqual(2);
    expect(witnessKeys.filter((k) => k === held.witnessKey)).toHaveLength(1);
    // The first payout's change sits on the wallet's change address …/1/0, whose index is the token
    // address's (0): the token is asked only for the input its key's script controls.
    const change = await t.db('addresses').where({ wallet_id: walletId, kind: 'change' }).first('derivation_index');
    expect(change.derivation_index).toBe(
      (await t.db('addresses').where({ key_label: held.label }).first('derivation_index')).derivation_index,
    );
    expect(await tokenSignatures()).toBe(before + 1);

    const sped = await api('POST', `/withdrawals/${prepared.body.id}/speed-up`, { replaces: original });
    expect(sped.status).toBe(200);
    const replacement: string = sped.body.attempts[1].txHash;
    const pool1 = await node.rpc<string[]>('getrawmempool', []);
    expect(pool1).toContain(replacement);
    expect(pool1).not.toContain(original);
    expect((await rawTx(replacement)).vin.map((i) => i.txinwitness?.[1])).toEqual(witnessKeys);
    expect(await tokenSignatures()).toBe(before + 2);
    const audited = await t
      .db('audit_log')
      .where({ action: 'withdrawal.speed_up', target_id: String(prepared.body.id) })
      .first();
    expect(audited.details).toMatchObject({ keyHeldIn: 'token', txHash: replacement });
    const fee = await feeOf(replacement);

    await node.rpc('generateblock', [await node.rpc<string>('getnewaddress'), [replacement]]);
    await follower.tick();
    expect(await get(prepared.body.id)).toMatchObject({ status: 'confirmed', txHash: replacement, fee: { amount: btc(fee) } });
    credited -= amount + fee;
    expect(await balances()).toEqual({ confirmed: btc(credited), reserved: '0', available: btc(credited), onchain: btc(credited) });
  });
});
