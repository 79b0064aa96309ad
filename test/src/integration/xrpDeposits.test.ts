import { randomBytes } from 'node:crypto';
import { type ChainSettings, MasterKey, createLogger, registerPlugins } from '@walletd/core';
import { type DetectPool, createDetectPool, createFollower } from '@walletd/indexer';
import { createXrpPlugin } from '@walletd/plugin-xrp';
import { createWallet, generateAddress } from '@walletd/server';
import {
  type RecordedRippled,
  type TestDatabase,
  createTestDatabase,
  seedCompany,
  startRecordedRippled,
  xrpFixture,
} from '@walletd/test-harness';

/**
 * The real follower (worker-thread detection, watched set, store, events) on the XRP plugin, whose
 * reader is the real xrpl client, against the recorded-response rippled server. It proves how
 * walletd reads and judges rippled's answers (validated ledgers only, delivered_amount, tags); it
 * cannot prove what the XRP Ledger would execute: the server runs no consensus and no paths, and a
 * partial payment delivers what the test says.
 */
describe('XRP deposits through the follower, against the recorded-response rippled server', () => {
  let t: TestDatabase;
  let pool: DetectPool;
  let node: RecordedRippled;
  const masterKey = new MasterKey(randomBytes(32));
  const plugin = createXrpPlugin();
  const registry = registerPlugins([plugin as never]);
  /** A real mainnet issuer; the test trusts it as if allow-listed. */
  const ISSUER = 'rvYAfWj5gh67oV6fW32ZzP3Aw4Eubs59B';
  const LOOKALIKE_ISSUER = 'rCSCManTZ8ME9EoLrSHHYKW8PPwWMgkwr';

  beforeAll(async () => {
    t = await createTestDatabase();
    pool = createDetectPool(1);
  });
  afterAll(async () => {
    await pool.close();
    await t.drop();
  });
  afterEach(async () => {
    await node?.stop();
  });

  const follower = (network: string, settings: Omit<ChainSettings, 'chain' | 'network'>) =>
    createFollower({
      db: t.db,
      logger: createLogger({ level: 'silent' }),
      pool,
      plugin: registry.forChain('xrp')!,
      settings: { chain: 'xrp', network, ...settings },
    });

  async function wallet(network: string) {
    const s = await seedCompany(t.db);
    const w = await createWallet(t.db, masterKey, { companyId: s.companyId, name: 'xrp', chain: 'xrp', network }, registry);
    const row = await t.db('wallets').where({ id: w.id }).first();
    const account = await t.db('addresses').where({ wallet_id: w.id, kind: 'account' }).first();
    return { s, row, account, address: () => generateAddress({ db: t.db, masterKey, plugins: registry }, row, null) };
  }
  const transfers = (walletId: number) =>
    t
      .db('transfers')
      .where({ wallet_id: walletId })
      .orderBy(['block_number', 'tx_hash'])
      .select('tx_hash', 'asset_key', 'amount', 'to_address', 'address_id', 'status', 'event_type', 'extra');
  const events = async (companyId: number) =>
    ((await t.db('events').where({ company_id: companyId }).orderBy('seq').select('type', 'body')) as { type: string; body: string }[]).map(
      (e) => ({ type: e.type, data: JSON.parse(e.body).data }),
    );

  it('credits tagged, untagged and unknown-tag payments exactly once, the delivered amount of a partial payment, never a tec or a look-alike issuer; final once validated', async () => {
    node = await startRecordedRippled();
    const { s, row, account, address } = await wallet('localnet');
    const a = await address();
    const b = await address();
    expect(a.address).toBe(`${account.address}:${a.destinationTag}`);
    node.fund(account.address, 20_000_000n);
    node.trust(account.address, 'USD', ISSUER);
    node.trust(account.address, 'USD', LOOKALIKE_ISSUER);
    node.close();
    const f = follower('localnet', {
      rpcUrl: node.url,
      startBlock: node.validated + 1,
      tokens: [{ contract: `USD.${ISSUER}`, symbol: 'USD', decimals: 6 }],
    });

    const tagged = node.pay({ to: account.address, tag: a.destinationTag as number, amount: '5000000' });
    const untagged = node.pay({ to: account.address, amount: '2000000' });
    const unknownTag = node.pay({ to: account.address, tag: 424242, amount: '3000000' });
    const partial = node.pay({ to: account.address, tag: b.destinationTag as number, amount: '314000000', partialDelivered: '181' });
    node.pay({ to: account.address, tag: a.destinationTag as number, amount: '9000000', result: 'tecNO_PERMISSION' });
    const usd = node.pay({
      to: account.address,
      tag: b.destinationTag as number,
      amount: { currency: 'USD', issuer: ISSUER, value: '12.5' },
    });
    node.pay({ to: account.address, tag: b.destinationTag as number, amount: { currency: 'USD', issuer: LOOKALIKE_ISSUER, value: '99' } });
    // Closed, not validated: not read at all.
    const ledger = node.close({ validate: false });
    await f.tick();
    expect(await transfers(row.id)).toEqual([]);

    node.validate();
    await f.tick();
    const rows = await transfers(row.id);
    const byHash = new Map(rows.map((r) => [r.tx_hash, r]));
    expect(rows).toHaveLength(5);
    expect(byHash.get(tagged)).toMatchObject({ amount: '5000000', to_address: a.address, address_id: a.id, asset_key: 'xrp:localnet:xrp' });
    expect(byHash.get(untagged)).toMatchObject({ amount: '2000000', to_address: account.address, address_id: account.id });
    expect(byHash.get(unknownTag)).toMatchObject({ amount: '3000000', to_address: account.address, address_id: account.id });
    expect(byHash.get(partial)).toMatchObject({ amount: '181', to_address: b.address, address_id: b.id });
    expect(byHash.get(usd)).toMatchObject({
      amount: '12500000',
      to_address: b.address,
      asset_key: `xrp:localnet:USD.${ISSUER}`,
      event_type: 'issued_currency_payment',
    });
    expect(rows.every((r) => r.status === 'confirmed')).toBe(true);

    const all = await events(s.companyId);
    const detected = all.filter((e) => e.type === 'deposit.detected').map((e) => e.data);
    expect(detected.map((d) => [d.txHash, d.toAddress, d.destinationTag, d.amount]).sort()).toEqual(
      [
        [tagged, a.address, a.destinationTag, '5'],
        [untagged, account.address, null, '2'],
        [unknownTag, account.address, 424242, '3'],
        [partial, b.address, b.destinationTag, '0.000181'],
        [usd, b.address, b.destinationTag, '12.5'],
      ].sort(),
    );
    expect(all.filter((e) => e.type === 'deposit.confirmed')).toHaveLength(5);
    expect(detected.every((d) => d.confirmations >= 0 && d.chain === 'xrp')).toBe(true);

    // A later round (and a restart of the follower) records nothing twice.
    node.close();
    await follower('localnet', { rpcUrl: node.url, startBlock: ledger }).tick();
    expect(await transfers(row.id)).toHaveLength(5);
    expect((await events(s.companyId)).filter((e) => e.type === 'deposit.detected')).toHaveLength(5);
  });

  it('indexes the recorded mainnet ledger 87704323 at its own index, and recorded payments exactly (a tag; a partial payment an account made to itself is its own movement)', async () => {
    node = await startRecordedRippled();
    const tagged = xrpFixture('xrp-mainnet-payment-destination-tag-c2b8df46.json').data;
    const partial = xrpFixture('xrp-mainnet-partial-payment-xrp-fcd8cfd0.json').data;
    node.includeRecorded([tagged, partial]);
    node.close();
    const { row } = await wallet('mainnet');
    // As if the company held the recipients: their rows in the plugin's match form.
    const insert = (address: string, index: number) =>
      t.db('addresses').insert({
        company_id: row.company_id,
        wallet_id: row.id,
        chain: 'xrp',
        network: 'mainnet',
        address,
        match_key: plugin.matchKey('xrp', 'mainnet', address),
        derivation_index: index,
        derivation_path: `recorded ${index}`,
        kind: 'deposit',
      });
    await insert('rxRpSNb1VktvzBz8JF2oJC6qaww6RZ7Lw', 1000);
    await insert('rNxp4h8apvRis6mJf9Sh8C6iRxfrDWN7AV:352660523', 1001);
    await insert('rapido5rxPmP4YkMZZEeXSHqWefxHEkqv6', 1002);
    await follower('mainnet', { rpcUrl: node.url, startBlock: 87704323 }).tick();
    const rows = await transfers(row.id);
    expect(rows.map((r) => [r.tx_hash.slice(0, 8), r.amount, r.to_address, r.status])).toEqual([
      ['066738E2', '1', 'rxRpSNb1VktvzBz8JF2oJC6qaww6RZ7Lw', 'confirmed'],
      ['55452947', '1', 'rxRpSNb1VktvzBz8JF2oJC6qaww6RZ7Lw', 'confirmed'],
      ['E21A9F1B', '1', 'rxRpSNb1VktvzBz8JF2oJC6qaww6RZ7Lw', 'confirmed'],
      ['C2B8DF46', '13000600000', 'rNxp4h8apvRis6mJf9Sh8C6iRxfrDWN7AV:352660523', 'confirmed'],
    ]);
    // FCD8CFD0 is rapido5… paying itself (a conversion through paths): its sender is an address of
    // the recipient's wallet, so it is an internal movement, never a deposit (its delivered_amount
    // rule is proven by the detector's own tests).
    const block = await t.db('transfers').where({ tx_hash: rows[0]?.tx_hash }).first('block_number', 'block_hash');
    expect(block).toEqual({ block_number: 87704323, block_hash: 'BAA4AF508E9A9CB7685D9E61B82486681E52E9B920904B0650499497F050D8FA' });
  });
});
