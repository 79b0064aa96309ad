import { type ChainReader, MasterKey, createLogger, registerPlugins } from '@walletd/core';
import { type DetectPool, type Follower, createDetectPool, createFollower, createIndexer } from '@walletd/indexer';
import { createEvmPlugin } from '@walletd/plugin-evm';
import { createWallet, generateAddress, loadPlugins } from '@walletd/server';
import {
  createTestDatabase,
  eventually,
  seedCompany,
  startAnvil,
  type Anvil,
  type TestDatabase,
  shippedPlugins,
} from '@walletd/test-harness';
import { randomBytes } from 'node:crypto';

/**
 * The follower's pipelined catch-up on a real anvil: order and exactly-once across many blocks,
 * a reorg while heights are in flight, and heights without a block (a Solana-like chain emulated
 * by a reader around anvil's).
 */
describe('follower catch-up', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let pool: DetectPool;
  const masterKey = new MasterKey(randomBytes(32));
  const plugin = createEvmPlugin();
  const registry = registerPlugins([plugin]);
  const logger = createLogger({ level: 'silent' });
  const network = 'devnet';

  beforeEach(async () => {
    t = await createTestDatabase();
    anvil = await startAnvil();
    pool = createDetectPool(2);
  });
  afterEach(async () => {
    await pool.close();
    await anvil.stop();
    await t.drop();
  });

  const follower = (startBlock: bigint, reader?: ChainReader, pipelineDepth = 8, shouldStop?: () => boolean): Follower =>
    createFollower({
      shouldStop,
      db: t.db,
      logger,
      pool,
      plugin: registry.forChain('ethereum')!,
      settings: { chain: 'ethereum', network, rpcUrl: anvil.url, confirmations: 3, startBlock: Number(startBlock) },
      reader,
      pipelineDepth,
    });
  const anvilReader = () => plugin.createReader('ethereum', network, { rpcUrl: anvil.url });

  async function depositAddress(): Promise<string> {
    const s = await seedCompany(t.db);
    const wallet = await createWallet(
      t.db,
      masterKey,
      { companyId: s.companyId, name: 'hot', chain: 'ethereum', network },
      shippedPlugins(),
    );
    const row = await t.db('wallets').where({ id: wallet.id }).first();
    return (await generateAddress({ db: t.db, masterKey, plugins: loadPlugins() }, row, null)).address;
  }
  const events = async (type: string) =>
    (await t.db('events').where({ type }).orderBy('seq').pluck('body')).map((b: string) => JSON.parse(b)) as {
      data: { txHash: string; reason?: string };
    }[];
  const transfer = (txHash: string) => t.db('transfers').where({ tx_hash: txHash }).first('status', 'reason', 'block_number');

  it('announces deposits across many blocks once each, in chain order', async () => {
    const to = await depositAddress();
    const start = (await anvil.head()) + 1n;
    const sent: string[] = [];
    for (let i = 0; i < 40; i++) {
      sent.push(await anvil.send(to, 1000n + BigInt(i)));
      if (i % 3 === 0) await anvil.mine(1); // some empty blocks between
    }
    // A stop half-way leaves a prefix written, in order, with nothing past it.
    let asked = 0;
    const stopped = follower(start, undefined, 8, () => ++asked > 3);
    await stopped.followRound();
    const cursor = await t.db('chain_cursors').where({ chain: 'ethereum', network }).first('height');
    expect(BigInt(cursor.height)).toBeLessThan(await anvil.head());
    const prefix = (await events('deposit.detected')).map((e) => e.data.txHash);
    expect(prefix).toEqual(sent.slice(0, prefix.length));
    expect(await t.db('transfers').where('block_number', '>', cursor.height).count('* as n').first()).toEqual({ n: 0 });

    const f = follower(start);
    await f.tick();
    expect((await events('deposit.detected')).map((e) => e.data.txHash)).toEqual(sent);
    expect(f.stats().indexed).toBe(await anvil.head());
    // Read again (a second round, a rescan): nothing announced twice.
    await anvil.mine(5);
    await f.tick();
    await f.rescanFrom(start);
    expect((await events('deposit.detected')).map((e) => e.data.txHash)).toEqual(sent);
    expect(f.stats().indexed).toBe(await anvil.head());
  });

  it('finds a reorg that happens while heights are in flight, drops them and follows the new chain', async () => {
    const to = await depositAddress();
    const start = (await anvil.head()) + 1n;
    const common: string[] = [];
    for (let i = 0; i < 5; i++) common.push(await anvil.send(to, 10n + BigInt(i)));
    const fork = await anvil.head();
    const snapshot = await anvil.rpc<string>('evm_snapshot');
    const old: string[] = [];
    for (let i = 0; i < 15; i++) old.push(await anvil.send(to, 100n + BigInt(i)));
    const oldHead = await anvil.head();

    // While the follower fetches the 8th block after the fork, the node switches to another
    // chain from the fork: blocks before it may already be written, later ones are in flight.
    const fresh: string[] = [];
    const real = anvilReader();
    let switched = false;
    // A real node switches to the longer chain at once; anvil's revert and 20 new blocks take a
    // while, so the other heights' fetches wait for the switch (one of them would otherwise find
    // no block at a height the node had, an error rather than a reorg).
    // Fetches already at the node finish on the old chain first (each reads a block, its receipts
    // and its traces: one cut between them would be a node error, not a reorg).
    let switching: Promise<void> | null = null;
    const atNode = new Set<Promise<unknown>>();
    const reader: ChainReader = Object.assign(Object.create(real), {
      fetchBlock: async (h: bigint) => {
        if (!switched && h === fork + 8n) {
          switched = true;
          switching = (async () => {
            await Promise.allSettled([...atNode]);
            await anvil.rpc('evm_revert', [snapshot]);
            for (let i = 0; i < 20; i++) fresh.push(await anvil.send(to, 5000n + BigInt(i)));
          })();
        }
        if (switching) await switching;
        const fetched = real.fetchBlock(h);
        atNode.add(fetched);
        return fetched.finally(() => atNode.delete(fetched));
      },
    });
    const f = follower(start, reader, 6);
    await f.tick();
    expect(switched).toBe(true);
    expect(f.stats().reorgs).toBeGreaterThanOrEqual(1);
    await f.tick(); // to the new head
    expect(f.stats().indexed).toBe(await anvil.head());
    expect(await anvil.head()).toBeGreaterThan(oldHead);

    const detected = (await events('deposit.detected')).map((e) => e.data.txHash);
    // Blocks of the old chain were written before the switch was seen.
    expect(old.filter((h) => detected.includes(h)).length).toBeGreaterThan(0);
    // The common blocks' and the new chain's deposits, once each, in chain order.
    expect(detected.filter((h) => !old.includes(h))).toEqual([...common, ...fresh]);
    // What the old chain announced is retracted (reason reorg); nothing of it stays pending.
    const retracted = (await events('deposit.rejected')).map((e) => e.data);
    for (const h of old) {
      const row = await transfer(h);
      if (detected.includes(h)) {
        expect(row).toMatchObject({ status: 'rejected', reason: 'reorg' });
        expect(retracted.filter((r) => r.txHash === h)).toHaveLength(1);
      } else expect(row).toBeUndefined();
    }
    for (const h of [...common, ...fresh]) expect((await transfer(h))?.status).not.toBe('rejected');
  });

  it('steps over heights without a block, and rewinds across them', async () => {
    const to = await depositAddress();
    const real = anvilReader();
    /** Heights the emulated chain has no block at. */
    const empty = new Set<bigint>();
    /** The block below a height that the emulated chain has: its parent. */
    const below = async (h: bigint) => {
      let p = h - 1n;
      while (empty.has(p)) p--;
      return (await real.blockHash(p)) as string;
    };
    const reader: ChainReader = Object.assign(Object.create(real), {
      fetchBlock: async (h: bigint) => {
        if (empty.has(h)) return null;
        const raw = await real.fetchBlock(h);
        if (!raw || !empty.has(h - 1n)) return raw;
        const parsed = JSON.parse(new TextDecoder().decode(raw));
        // The reader hands over the node's JSON-RPC answers as they came.
        (parsed.block.result ?? parsed.block).parentHash = await below(h);
        return new TextEncoder().encode(JSON.stringify(parsed));
      },
      blockHash: async (h: bigint) => (empty.has(h) ? null : real.blockHash(h)),
    });

    const start = (await anvil.head()) + 1n;
    const first = await anvil.send(to, 1n); // start
    const fork = await anvil.head();
    const snapshot = await anvil.rpc<string>('evm_snapshot');
    await anvil.mine(2); // fork+1, fork+2: no block
    empty.add(fork + 1n).add(fork + 2n);
    const second = await anvil.send(to, 2n); // fork+3
    await anvil.mine(1); // fork+4: no block, at the head
    empty.add(fork + 4n);

    const f = follower(start, reader);
    await f.tick();
    expect((await events('deposit.detected')).map((e) => e.data.txHash)).toEqual([first, second]);
    const recorded = await t.db('recent_blocks').where({ chain: 'ethereum', network }).orderBy('height').pluck('height');
    expect(recorded.map(BigInt)).toEqual([fork, fork + 3n]);
    const cursor = await t.db('chain_cursors').where({ chain: 'ethereum', network }).first('height', 'hash');
    expect(BigInt(cursor.height)).toBe(fork + 4n);
    expect(cursor.hash).toBe(await real.blockHash(fork + 3n));
    await f.tick(); // nothing new: the head is the height without a block
    expect(f.stats().reorgs).toBe(0);

    // The node switches to another chain from `fork`: fork+1 has no block, fork+2 holds another deposit.
    await anvil.rpc('evm_revert', [snapshot]);
    empty.clear();
    await anvil.mine(1);
    empty.add(fork + 1n);
    const third = await anvil.send(to, 3n); // fork+2
    await anvil.mine(3); // fork+3..fork+5, so the new chain is longer
    await f.tick();
    expect(f.stats().reorgs).toBe(1);
    expect(f.stats().indexed).toBe(fork + 5n);
    expect((await events('deposit.detected')).map((e) => e.data.txHash)).toEqual([first, second, third]);
    expect(await transfer(second)).toMatchObject({ status: 'rejected', reason: 'reorg' });
    expect(await transfer(first)).toMatchObject({ status: 'confirmed' });
    const after = await t.db('recent_blocks').where({ chain: 'ethereum', network }).orderBy('height').pluck('height');
    expect(after.map(BigInt)).toEqual([fork, fork + 2n, fork + 3n, fork + 4n, fork + 5n]);
  });

  it('tracks withdrawals in a loop of its own: a withdrawal stuck at the node does not hold up deposits', async () => {
    const to = await depositAddress();
    const wallet = await t.db('addresses').where({ address: to }).first('company_id', 'wallet_id');
    // A broadcast withdrawal whose verification never answers (a node that hangs on it).
    await t.db('withdrawals').insert({
      company_id: wallet.company_id,
      wallet_id: wallet.wallet_id,
      intent_hash: 'x',
      chain: 'ethereum',
      network,
      asset_key: 'ethereum:devnet:native',
      amount: '1',
      to_address: to,
      outputs: JSON.stringify([{ toAddress: to, amount: '1' }]),
      source_addresses: [to],
      asset: JSON.stringify({ key: 'ethereum:devnet:native', symbol: 'ETH', decimals: 18 }),
      status: 'broadcast',
      signed_tx: '0x00',
      tx_hash: `0x${'ee'.repeat(32)}`,
    });
    let verifying = 0;
    let release: () => void = () => undefined;
    const stuck = new Promise<void>((r) => {
      release = r;
    });
    const base = createEvmPlugin();
    const hanging = {
      ...base,
      withdrawals: base.withdrawals && {
        ...base.withdrawals,
        verify: async () => {
          verifying++;
          await stuck;
          return { status: 'pending' as const, confirmations: 0 };
        },
      },
    };
    const start = (await anvil.head()) + 1n;
    const indexer = createIndexer({
      db: t.db,
      logger,
      registry: registerPlugins([hanging]),
      chains: [{ chain: 'ethereum', network, rpcUrl: anvil.url, confirmations: 3, startBlock: Number(start), pollIntervalMs: 100 }],
      threads: 1,
    });
    indexer.start();
    try {
      await eventually(
        async () => verifying,
        (n) => n > 0,
      );
      const tx = await anvil.send(to, 77n);
      const detected = await eventually(
        async () => (await events('deposit.detected')).map((e) => e.data.txHash),
        (h) => h.includes(tx),
      );
      expect(detected).toEqual([tx]);
      expect(verifying).toBe(1); // still the first verification, hanging
    } finally {
      release();
      await indexer.stop();
    }
  });
});
