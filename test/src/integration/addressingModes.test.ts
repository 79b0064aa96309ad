import { randomBytes } from 'node:crypto';
import {
  type ChainSettings,
  type DetectedTransfer,
  MasterKey,
  assetKey,
  chainAssets,
  ensureTokenAccounts,
  registerPlugins,
} from '@walletd/core';
import { persistBlock } from '@walletd/indexer';
import {
  type RecordedCalls,
  type Seeded,
  type TestApp,
  type TestDatabase,
  call,
  createRecordingPlugin,
  createTestDatabase,
  expectSchema,
  seedCompany,
  startTestApp,
  creditAddress,
  nativeAsset,
} from '@walletd/test-harness';

/**
 * Contract v2 addressing in the service (issue 11), with the recording test double standing in for
 * the chains whose plugins come later (no node is needed):
 * - account-tag (XRP): one account per wallet derived at creation; deposit addresses are the
 *   account plus a random tag, allocated without opening the secret; the account pays withdrawals;
 *   payments with no or an unknown tag are recorded against the account, never lost;
 * - token accounts (Solana ATAs, TON jetton wallets): registered with each deposit address, credited
 *   to the owner and only in their own asset;
 * - transfer identity by `txKey` where a hash is not unique (Polkadot);
 * - `?onchain=true` reports spendable beside total (a chain's minimum kept back).
 */
describe('addressing modes of contract v2', () => {
  let t: TestDatabase;
  let app: TestApp;
  let s: Seeded;
  let xrpCalls: RecordedCalls;
  const masterKey = new MasterKey(randomBytes(32));
  const usdcContract = 'r0000000000000000000000aa';
  const chains: ChainSettings[] = [
    // Unreachable nodes: the recording reader answers instead.
    { chain: 'xrp', network: 'devnet', rpcUrl: 'http://127.0.0.1:9' },
    { chain: 'solana', network: 'devnet', rpcUrl: 'http://127.0.0.1:9', tokens: [{ symbol: 'USDC', decimals: 6, contract: usdcContract }] },
  ];
  const api = (method: string, path: string, body?: unknown) => call(app.url, method, `/v1${path}`, { key: s.rootKey, body });

  beforeAll(async () => {
    t = await createTestDatabase();
    const xrp = createRecordingPlugin('xrp', undefined, { addressing: 'account-tag', reserve: 10_000_000n });
    xrpCalls = xrp.calls;
    const solana = createRecordingPlugin('solana', undefined, { tokenAccounts: true });
    app = await startTestApp(
      t.db,
      { chains, rateLimit: { writesPerKeyPerMinute: 1000 } },
      masterKey,
      registerPlugins([xrp.plugin, solana.plugin]),
    );
    s = await seedCompany(t.db);
  });
  afterAll(async () => {
    await app.close();
    await t.drop();
  });

  describe('account plus tag (XRP)', () => {
    let walletId: number;
    let account: string;
    beforeAll(async () => {
      walletId = (await api('POST', '/wallets', { name: 'xrp', chain: 'xrp', network: 'devnet' })).body.id;
    });

    it('derives the account when the wallet is created and lists it as the wallet account', async () => {
      const list = await api('GET', `/wallets/${walletId}/addresses`);
      expect(list.status).toBe(200);
      expectSchema('AddressList', list.body);
      expect(list.body.addresses).toEqual([
        expect.objectContaining({ kind: 'account', address: 'r000000000000000000000000', destinationTag: null, index: 0, path: 'm/0/0' }),
      ]);
      account = list.body.addresses[0].address;
    });

    it('hands out account:tag addresses with distinct random tags, without opening the wallet secret', async () => {
      const open = jest.spyOn(masterKey, 'open');
      const made = [];
      for (let i = 0; i < 5; i++) made.push((await api('POST', `/wallets/${walletId}/addresses`, { label: `customer ${i}` })).body);
      expect(open).not.toHaveBeenCalled();
      open.mockRestore();
      for (const [i, a] of made.entries()) {
        expectSchema('Address', a);
        expect(a).toMatchObject({ kind: 'deposit', index: i, path: 'm/0/0', label: `customer ${i}` });
        expect(a.destinationTag).toEqual(expect.any(Number));
        expect(a.destinationTag).toBeGreaterThan(0);
        expect(a.destinationTag).toBeLessThanOrEqual(4294967295);
        expect(a.address).toBe(`${account}:${a.destinationTag}`);
      }
      expect(new Set(made.map((a) => a.destinationTag)).size).toBe(5);
      const list = (await api('GET', `/wallets/${walletId}/addresses`)).body.addresses;
      expect(list.map((a: { kind: string }) => a.kind)).toEqual(['account', 'deposit', 'deposit', 'deposit', 'deposit', 'deposit']);
    });

    it('refuses a second row with a tag already issued for the account', async () => {
      const issued = await t.db('addresses').where({ wallet_id: walletId }).whereNotNull('destination_tag').first();
      const { id: _id, created_at: _c, ...copy } = issued;
      await expect(t.db('addresses').insert({ ...copy, derivation_index: 99 })).rejects.toThrow(/addresses_chain_network_match_key_unique/);
    });

    it('reads the on-chain balance of the account once (tags are not accounts) with its reserve kept back', async () => {
      const res = await api('GET', `/wallets/${walletId}/balances?onchain=true`);
      expect(res.status).toBe(200);
      expectSchema('Balances', res.body);
      // The double reports 1,000,000 XRP at any address: counting the five tagged rows would read 6,000,000.
      expect(res.body.balances).toEqual([expect.objectContaining({ confirmed: '0', onchain: '1000000', onchainSpendable: '999990' })]);
    });

    it('pays withdrawals from the account', async () => {
      // The account's funds as the indexer would have credited them (no indexer follows this double).
      const acct = await t.db('addresses').where({ wallet_id: walletId, kind: 'account' }).first('id', 'address');
      await creditAddress(t.db, acct, nativeAsset('xrp', 'devnet').key, 5_000_000n);
      const res = await api('POST', `/wallets/${walletId}/withdrawals`, {
        idempotencyKey: 'tag-1',
        asset: 'XRP',
        toAddress: 'r0000000000000000000000ff',
        amount: '1',
        destinationTag: 42,
      });
      expect(res.status).toBe(201);
      expect(res.body.fromAddress).toBe(account);
      expect(xrpCalls.build.at(-1)?.sources).toEqual([account]);
    });

    it('records a tagged payment against its address and an untagged or unknown-tag one against the account', async () => {
      const rows = await t.db('addresses').where({ wallet_id: walletId }).orderBy('id');
      const tagged = rows.find((r: { kind: string }) => r.kind === 'deposit');
      const acct = rows.find((r: { kind: string }) => r.kind === 'account');
      const native = nativeAsset('xrp', 'devnet');
      const pay = (txHash: string, toKey: string, tag: number | null): DetectedTransfer => ({
        txHash,
        eventIndex: 0,
        to: toKey,
        toKey,
        assetKey: native.key,
        amount: 25_000_000n,
        eventType: 'native_transfer',
        extra: { destinationTag: tag },
      });
      const key = { chain: 'xrp', network: 'devnet' };
      const written = await persistBlock(
        t.db,
        key,
        {
          block: { number: 10n, hash: 'L10', parentHash: 'L9' },
          transfers: [
            pay('A1', tagged.match_key, Number(tagged.destination_tag)),
            pay('A2', acct.match_key, null),
            pay('A3', acct.match_key, 7),
          ],
        },
        new Map([[native.key, native]]),
        64,
        10n,
        false,
      );
      expect(written).toBe(3);
      const events = (await t.db('events').where({ type: 'deposit.detected', wallet_id: walletId }).orderBy('seq').pluck('body')).map(
        (b: string) => JSON.parse(b).data,
      );
      expect(
        events.map((e: { txHash: string; toAddress: string; addressId: number; destinationTag: number | null }) => [
          e.txHash,
          e.toAddress,
          e.addressId,
          e.destinationTag,
        ]),
      ).toEqual([
        ['A1', tagged.address, tagged.id, Number(tagged.destination_tag)],
        ['A2', acct.address, acct.id, null],
        ['A3', acct.address, acct.id, 7],
      ]);
    });
  });

  describe('token accounts (Solana ATAs, TON jetton wallets)', () => {
    let walletId: number;
    let owner: { id: number; address: string; match_key: string };
    let tokenAccount: { match_key: string; owner_address_id: number; asset_key: string };
    const usdcKey = assetKey('solana', 'devnet', usdcContract);
    const native = nativeAsset('solana', 'devnet');
    const assets = new Map([
      [native.key, native],
      [usdcKey, { key: usdcKey, symbol: 'USDC', decimals: 6, contractAddress: usdcContract }],
    ]);
    const key = { chain: 'solana', network: 'devnet' };

    beforeAll(async () => {
      walletId = (await api('POST', '/wallets', { name: 'sol', chain: 'solana', network: 'devnet' })).body.id;
      const made = (await api('POST', `/wallets/${walletId}/addresses`)).body;
      owner = await t.db('addresses').where({ id: made.id }).first();
      tokenAccount = await t.db('addresses').where({ wallet_id: walletId, kind: 'token_account' }).first();
    });

    it('registers the address token account per allow-listed token and never lists it', async () => {
      expect(tokenAccount).toMatchObject({
        owner_address_id: owner.id,
        asset_key: usdcKey,
        match_key: `t${owner.match_key.slice(1, 23)}aa`,
      });
      const list = (await api('GET', `/wallets/${walletId}/addresses`)).body.addresses;
      expect(list.map((a: { address: string }) => a.address)).toEqual([owner.address]);
    });

    it('credits a transfer through the token account to its owner, only in its own asset', async () => {
      const through = (txHash: string, asset: string): DetectedTransfer => ({
        txHash,
        eventIndex: 0,
        to: tokenAccount.match_key,
        toKey: tokenAccount.match_key,
        assetKey: asset,
        amount: 1_500_000n,
        eventType: 'token_transfer',
      });
      const written = await persistBlock(
        t.db,
        key,
        { block: { number: 5n, hash: 'S5', parentHash: 'S4' }, transfers: [through('T1', usdcKey), through('T2', native.key)] },
        assets,
        64,
        5n,
        false,
      );
      expect(written).toBe(1);
      const rows = await t.db('transfers').where(key).select('tx_hash', 'address_id', 'to_address', 'asset_key', 'amount');
      expect(rows).toEqual([{ tx_hash: 'T1', address_id: owner.id, to_address: owner.address, asset_key: usdcKey, amount: '1500000' }]);
    });

    it('registers token accounts for addresses made before the token was allow-listed (the indexer at start)', async () => {
      const plugin = createRecordingPlugin('solana', undefined, { tokenAccounts: true }).plugin;
      const later = 'r0000000000000000000000bb';
      const settings = {
        ...chains[1],
        tokens: [...(chains[1]?.tokens ?? []), { symbol: 'PYUSD', decimals: 6, contract: later }],
      } as ChainSettings;
      const { tokens } = chainAssets(plugin, settings);
      const reader = plugin.createReader('solana', 'devnet', { rpcUrl: settings.rpcUrl });
      expect(await ensureTokenAccounts(t.db, plugin, reader, 'solana', 'devnet', tokens)).toBe(1);
      expect(await ensureTokenAccounts(t.db, plugin, reader, 'solana', 'devnet', tokens)).toBe(0);
      expect(await t.db('addresses').where({ owner_address_id: owner.id }).orderBy('id').pluck('asset_key')).toEqual([
        usdcKey,
        assetKey('solana', 'devnet', later),
      ]);
    });

    it('tells transfers apart by txKey where one hash covers several (Polkadot extrinsics)', async () => {
      const same = (txKey: string): DetectedTransfer => ({
        txHash: 'H',
        txKey,
        eventIndex: 0,
        to: owner.address,
        toKey: owner.match_key,
        assetKey: native.key,
        amount: 7n,
        eventType: 'native_transfer',
      });
      const block = { block: { number: 6n, hash: 'S6', parentHash: 'S5' }, transfers: [same('6-1'), same('6-2')] };
      expect(await persistBlock(t.db, key, block, assets, 64, 6n, false)).toBe(2);
      expect(await persistBlock(t.db, key, block, assets, 64, 6n, false)).toBe(0);
      expect(await t.db('transfers').where({ tx_hash: 'H' }).orderBy('tx_key').pluck('tx_key')).toEqual(['6-1', '6-2']);
    });
  });
});
