import { randomBytes } from 'node:crypto';
import { Address, type Cell, beginCell, toNano } from '@ton/core';
import { type ChainSettings, MasterKey, type WithdrawalIntent, createLogger, registerPlugins } from '@walletd/core';
import { type DetectPool, createDetectPool, createFollower } from '@walletd/indexer';
import { createTonPlugin } from '@walletd/plugin-ton';
import { createWallet, generateAddress, withWalletSecret } from '@walletd/server';
import { type TestDatabase, TonSandboxNode, createTestDatabase, seedCompany, shippedPlugins, nativeAsset } from '@walletd/test-harness';

/**
 * TON deposits through the real follower and the plugin's own toncenter reader, against the
 * toncenter test adapter over @ton/sandbox (the real emulator executes every transfer, mint and
 * bounce; the adapter makes up the blocks: see devchains/src/tonSandbox.ts).
 */
describe('TON deposits through the follower, on the sandbox adapter', () => {
  let t: TestDatabase;
  let pool: DetectPool;
  let node: TonSandboxNode;
  const masterKey = new MasterKey(randomBytes(32));
  const plugin = createTonPlugin();
  const registry = registerPlugins([plugin as never]);

  beforeAll(async () => {
    t = await createTestDatabase();
    pool = createDetectPool(1);
    node = await TonSandboxNode.start();
  });
  afterAll(async () => {
    await pool.close();
    await node.close();
    await t.drop();
  });

  const comment = (text: string) => beginCell().storeUint(0, 32).storeStringTail(text).endCell();
  const transfers = (walletId: number) =>
    t
      .db('transfers')
      .where({ wallet_id: walletId })
      .orderBy(['block_number', 'event_index'])
      .select('tx_hash', 'event_index', 'asset_key', 'amount', 'to_address', 'address_id', 'status', 'event_type', 'extra');

  /** A jetton master of the sandbox's admin; `content` tells masters apart (their addresses follow from it). */
  async function deployMinter(content: Cell) {
    const { JettonMinter } = require('@ton-community/assets-sdk') as typeof import('@ton-community/assets-sdk');
    const admin = await node.chain.treasury('admin');
    const minter = node.chain.openContract(JettonMinter.createFromConfig({ admin: admin.address, content }));
    node.record(await minter.sendDeploy(admin.getSender(), toNano('0.1')));
    return { admin, minter };
  }
  /** A new company's TON wallet row. */
  async function tonWallet() {
    const s = await seedCompany(t.db);
    const w = await createWallet(
      t.db,
      masterKey,
      { companyId: s.companyId, name: 'ton', chain: 'ton', network: 'localnet' },
      shippedPlugins(),
    );
    return t.db('wallets').where({ id: w.id }).first();
  }
  /** The real follower from `start`, with `master`'s jetton allow-listed as USDT. */
  const followerFrom = (start: number, master: Address) => {
    const settings: ChainSettings = {
      chain: 'ton',
      network: 'localnet',
      rpcUrl: node.url,
      startBlock: start,
      tokens: [{ contract: master.toString(), symbol: 'USDT', decimals: 6 }],
    };
    return createFollower({ db: t.db, logger: createLogger({ level: 'silent' }), pool, plugin: registry.forChain('ton')!, settings });
  };

  it("credits TON with its comment and allow-listed jettons from the owner's own jetton wallet only; never a forged notification, a bounce or an excess", async () => {
    const { admin, minter } = await deployMinter(beginCell().endCell());
    const { minter: lookalike } = await deployMinter(beginCell().storeUint(1, 8).endCell());
    const start = node.mine() + 1;

    const row = await tonWallet();
    const a = await generateAddress({ db: t.db, masterKey, plugins: registry }, row, null);
    const b = await generateAddress({ db: t.db, masterKey, plugins: registry }, row, null);
    expect(a.address).toMatch(/^0Q/); // non-bounceable, test-only: a payment to the undeployed wallet stays
    const follower = followerFrom(start, minter.address);

    const aAddr = Address.parse(a.address);
    const bAddr = Address.parse(b.address);
    // 2 TON with a comment to the undeployed wallet (compute skipped: the value stays), non-bounceable.
    node.record(await admin.send({ to: aAddr, value: toNano('2'), bounce: false, body: comment('order 7') }));
    // 1 TON bounceable to the other undeployed wallet: it bounces back, nothing is credited.
    node.record(await admin.send({ to: bAddr, value: toNano('1'), bounce: true }));
    // 25 USDT minted to a, with a comment in the forward payload: the owner's jetton wallet notifies it.
    node.record(
      await minter.sendMint(admin.getSender(), aAddr, 25_000_000n, {
        value: toNano('0.2'),
        notify: { amount: 1n, payload: comment('inv-1') },
      }),
    );
    // A look-alike jetton (not allow-listed) and a forged notification straight from the admin.
    node.record(await lookalike.sendMint(admin.getSender(), aAddr, 99_000_000n, { value: toNano('0.2'), notify: { amount: 1n } }));
    const forged = beginCell()
      .storeUint(0x7362d09c, 32)
      .storeUint(0, 64)
      .storeCoins(1_000_000_000n)
      .storeAddress(admin.address)
      .storeBit(0)
      .endCell();
    node.record(await admin.send({ to: aAddr, value: toNano('0.05'), bounce: false, body: forged }));
    node.mine();

    await follower.tick();
    const rows = await transfers(row.id);
    expect(rows.map((r) => [r.event_type, r.asset_key, r.amount, r.to_address, r.address_id, r.status, r.extra?.memo])).toEqual([
      ['ton_transfer', 'ton:localnet:ton', '2000000000', a.address, a.id, 'confirmed', 'order 7'],
      ['jetton_transfer', `ton:localnet:${minter.address.toRawString()}`, '25000000', a.address, a.id, 'confirmed', 'inv-1'],
    ]);
    // The token account is registered for a, tied to the allow-listed master and not listed as an address.
    const tokenAccount = await t.db('addresses').where({ owner_address_id: a.id, kind: 'token_account' }).first();
    expect(tokenAccount.match_key).toBe(`${(await minter.getWalletAddress(aAddr)).toRawString()}:${minter.address.toRawString()}`);
  });
  it('credits jettons sent with no forward amount (no notification) from the jetton wallet itself, and a notified one once', async () => {
    const { admin, minter } = await deployMinter(beginCell().storeUint(2, 8).endCell());
    const start = node.mine() + 1;
    const row = await tonWallet();
    const a = await generateAddress({ db: t.db, masterKey, plugins: registry }, row, null);
    const aAddr = Address.parse(a.address);
    // forward_ton_amount 0: the jetton wallet's balance grows and the owner is told nothing.
    node.record(await minter.sendMint(admin.getSender(), aAddr, 7_000_000n, { value: toNano('0.2'), notify: false }));
    // With a forward amount: the notification at the owner is credited, the jetton wallet's own transaction not again.
    node.record(await minter.sendMint(admin.getSender(), aAddr, 3_000_000n, { value: toNano('0.2'), notify: { amount: 1n } }));
    node.mine();
    await followerFrom(start, minter.address).tick();
    const rows = await transfers(row.id);
    expect(rows.map((r) => [r.event_type, r.amount, r.to_address, r.address_id]).sort()).toEqual([
      ['jetton_transfer', '3000000', a.address, a.id],
      ['jetton_transfer', '7000000', a.address, a.id],
    ]);
  });

  it("a move between two addresses of one wallet is no deposit (TON and jetton), nor the excess of its own jetton transfer; anyone else's excesses op is", async () => {
    const { admin, minter } = await deployMinter(beginCell().storeUint(3, 8).endCell());
    const start = node.mine() + 1;
    const row = await tonWallet();
    const a = await generateAddress({ db: t.db, masterKey, plugins: registry }, row, null);
    const b = await generateAddress({ db: t.db, masterKey, plugins: registry }, row, null);
    const aAddr = Address.parse(a.address);
    node.record(await admin.send({ to: aAddr, value: toNano('3'), bounce: false }));
    node.record(await minter.sendMint(admin.getSender(), aAddr, 40_000_000n, { value: toNano('0.2'), notify: { amount: 1n } }));
    node.mine();
    // a pays b, signed with the wallet's own key: the recipient's transaction has a hash of its own.
    const reader = plugin.createReader('ton', 'localnet', { rpcUrl: node.url, retries: 0 });
    const verbs = plugin.withdrawals!;
    const move = async (asset: WithdrawalIntent['asset'], amount: bigint) => {
      const intent: WithdrawalIntent = {
        chain: 'ton',
        network: 'localnet',
        asset,
        outputs: [{ to: b.address, amount }],
        sources: [a.address],
      };
      const prepared = await verbs.build(intent, reader);
      const signed = await withWalletSecret(masterKey, row.id, row.secret_envelope, (secret) => verbs.sign(prepared, secret, [0]));
      await verbs.broadcast(signed, reader);
      node.mine();
    };
    await move(nativeAsset('ton', 'localnet'), 1_000_000_000n);
    const usdt = {
      key: `ton:localnet:${minter.address.toRawString()}`,
      symbol: 'USDT',
      decimals: 6,
      contractAddress: minter.address.toString(),
    };
    await move(usdt, 15_000_000n);
    // Anyone's internal message with op excesses (0xd53276db) and value is money arriving: a deposit.
    const excesses = beginCell().storeUint(0xd53276db, 32).storeUint(0, 64).endCell();
    node.record(await admin.send({ to: aAddr, value: toNano('0.5'), bounce: false, body: excesses }));
    node.mine();

    await followerFrom(start, minter.address).tick();
    const rows = await transfers(row.id);
    expect(rows.map((r) => [r.event_type, r.amount, r.to_address])).toEqual([
      ['ton_transfer', '3000000000', a.address],
      ['jetton_transfer', '40000000', a.address],
      ['ton_transfer', '500000000', a.address],
    ]);
    // Announced: those three, never b's side of a move.
    const announced = (await t.db('events').where({ type: 'deposit.detected', wallet_id: row.id }).pluck('body')) as string[];
    expect(announced.map((body) => JSON.parse(body).data.amount).sort()).toEqual(['0.5', '3', '40']);
  });
});
