import { randomBytes } from 'node:crypto';
import { generateKeyPairSigner, getAddressEncoder } from '@solana/kit';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import {
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getInitializeAccount3Instruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import { type ChainSettings, MasterKey, createLogger, registerPlugins } from '@walletd/core';
import { type DetectPool, createDetectPool, createFollower } from '@walletd/indexer';
import { createSolanaPlugin } from '@walletd/plugin-solana';
import { createWallet, generateAddress } from '@walletd/server';
import {
  type SolanaSvmNode,
  type TestDatabase,
  createTestDatabase,
  seedCompany,
  startSolanaSvm,
  shippedPlugins,
} from '@walletd/test-harness';

const ata = async (owner: string, mint: string) =>
  (await findAssociatedTokenPda({ owner: owner as never, mint: mint as never, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0] as string;

/**
 * Solana deposits end to end over JSON-RPC: the plugin's own reader talks to the test adapter over
 * litesvm exactly as to a validator; the follower (Piscina pool, pipelined) indexes the blocks
 * made of transactions the engine really executed.
 */
describe('Solana deposits through the follower (litesvm behind the JSON-RPC adapter)', () => {
  let t: TestDatabase;
  let node: SolanaSvmNode;
  let pool: DetectPool;
  const masterKey = new MasterKey(randomBytes(32));
  const plugin = createSolanaPlugin();
  const registry = registerPlugins([plugin as never]);

  beforeAll(async () => {
    t = await createTestDatabase();
    node = await startSolanaSvm({ finalityDepth: 2 });
    pool = createDetectPool(1);
  });
  afterAll(async () => {
    await pool?.close();
    await node?.close();
    await t?.drop();
  });

  it('credits SOL to the owner key and SPL only through the registered ATA, steps over skipped slots, and ignores failed, foreign and fake transfers', async () => {
    const usdc = await node.createMint(6);
    const fake = await node.createMint(6);
    const s = await seedCompany(t.db);
    const wallet = await createWallet(
      t.db,
      masterKey,
      { companyId: s.companyId, name: 'sol', chain: 'solana', network: 'localnet' },
      shippedPlugins(),
    );
    const row = await t.db('wallets').where({ id: wallet.id }).first();
    const a = await generateAddress({ db: t.db, masterKey, plugins: registry }, row, null);
    const b = await generateAddress({ db: t.db, masterKey, plugins: registry }, row, null);
    const settings: ChainSettings = {
      chain: 'solana',
      network: 'localnet',
      rpcUrl: node.url,
      startBlock: Number(node.slot) + 1,
      tokens: [{ contract: usdc, symbol: 'USDC', decimals: 6 }],
    };
    const follower = createFollower({ db: t.db, logger: createLogger({ level: 'silent' }), pool, plugin: plugin as never, settings });

    // The follower registers each deposit address's ATA for the allow-listed mint at start.
    await follower.followRound();
    const accounts = await t.db('addresses').where({ wallet_id: wallet.id, kind: 'token_account' }).orderBy('id');
    expect(accounts.map((x) => [x.address, x.asset_key])).toEqual([
      [await ata(a.address, usdc), `solana:localnet:${usdc}`],
      [await ata(b.address, usdc), `solana:localnet:${usdc}`],
    ]);

    const sol1 = await node.sendSol(a.address, 2_000_000_000n);
    node.skipSlots(3); // a skipped slot (three) between two deposits
    const sol2 = await node.sendSol(a.address, 1_000_000n);
    // b's ATA is created by the sender (its rent is no SOL deposit), then paid.
    await node.mintTo(usdc, b.address, 0n, 6);
    const spl = await node.transferToken(usdc, await ata(b.address, usdc), 5_250_000n, 6);
    // A mint that is not allow-listed, to the owner's own token account for it: nothing.
    await node.mintTo(fake, b.address, 7_000_000n, 6);
    // A token account owned by a deposit address but not its ATA: not its registered account, nothing.
    const other = await generateKeyPairSigner();
    await node.run([
      getCreateAccountInstruction({
        payer: node.faucet,
        newAccount: other,
        lamports: node.svm.minimumBalanceForRentExemption(165n),
        space: 165n,
        programAddress: TOKEN_PROGRAM_ADDRESS,
      }),
      getInitializeAccount3Instruction({ account: other.address, mint: usdc as never, owner: a.address as never }),
    ]);
    await node.transferToken(usdc, other.address, 3_000_000n, 6);
    // An account of another program whose data is a token account naming the deposit address: nothing.
    const lookalike = await generateKeyPairSigner();
    const data = new Uint8Array(165);
    data.set(getAddressEncoder().encode(usdc as never), 0);
    data.set(getAddressEncoder().encode(a.address as never), 32);
    data[64] = 1;
    node.svm.setAccount({
      address: lookalike.address,
      lamports: 10_000_000n as never,
      programAddress: (await generateKeyPairSigner()).address,
      executable: false,
      data,
      space: 165n,
    } as never);
    await node.sendSol(lookalike.address, 1_000n);
    // A failed transaction: its transfer to a is rolled back by the engine; only the fee is charged.
    const failed = await node.run([
      getTransferSolInstruction({ source: node.faucet, destination: a.address as never, amount: 9_000_000n }),
      getTransferCheckedInstruction({
        source: (await ata(node.faucet.address, usdc)) as never,
        mint: usdc as never,
        destination: (await ata(b.address, usdc)) as never,
        authority: node.faucet,
        amount: 10n ** 15n,
        decimals: 6,
      }),
    ]);
    expect(failed.err).not.toBeNull();
    node.produceBlocks(3); // finalized trails by 2 blocks

    await follower.tick();
    const rows = await t
      .db('transfers')
      .where({ chain: 'solana', network: 'localnet' })
      .orderBy('id')
      .select('tx_hash', 'event_index', 'amount', 'to_address', 'asset_key', 'event_type', 'status', 'block_number');
    expect(rows.map((r) => [r.tx_hash, r.to_address, r.asset_key, r.amount, r.event_type, r.status])).toEqual([
      [sol1, a.address, 'solana:localnet:sol', '2000000000', 'sol_transfer', 'confirmed'],
      [sol2, a.address, 'solana:localnet:sol', '1000000', 'sol_transfer', 'confirmed'],
      [spl, b.address, `solana:localnet:${usdc}`, '5250000', 'spl_transfer', 'confirmed'],
    ]);
    // The skipped slots were stepped over: the two SOL deposits are four slots apart, the blocks link.
    expect(BigInt(rows[1].block_number) - BigInt(rows[0].block_number)).toBe(4n);
    expect(rows.some((r) => r.tx_hash === failed.signature)).toBe(false);
    // Nothing pending: every credit above is final on the adapter's finalized commitment.
    expect(follower.stats().indexed).toBe(node.slot);
  });

  it('waits for the finalized commitment; the reader steps over skipped slots and refuses a slot not yet available', async () => {
    const s = await seedCompany(t.db, 'paid', 'Finality');
    const wallet = await createWallet(
      t.db,
      masterKey,
      { companyId: s.companyId, name: 'fin', chain: 'solana', network: 'localnet' },
      shippedPlugins(),
    );
    const row = await t.db('wallets').where({ id: wallet.id }).first();
    const a = await generateAddress({ db: t.db, masterKey, plugins: registry }, row, null);
    const settings: ChainSettings = { chain: 'solana', network: 'localnet', rpcUrl: node.url };
    const follower = createFollower({ db: t.db, logger: createLogger({ level: 'silent' }), pool, plugin: plugin as never, settings });
    await follower.tick();
    const tx = await node.sendSol(a.address, 5_000_000n);
    await follower.tick();
    const status = async () => (await t.db('transfers').where({ tx_hash: tx }).first('status'))?.status;
    expect(await status()).toBe('pending'); // in a confirmed block, 2 blocks short of finalized
    node.produceBlocks(1);
    await follower.tick();
    expect(await status()).toBe('pending');
    node.produceBlocks(1);
    await follower.tick();
    expect(await status()).toBe('confirmed');

    const reader = plugin.createReader('solana', 'localnet', { rpcUrl: node.url });
    const before = node.slot;
    node.skipSlots(2);
    node.produceBlocks(1);
    expect(await reader.fetchBlock(before + 1n)).toBeNull();
    expect(await reader.blockHash(before + 2n)).toBeNull();
    expect(await reader.fetchBlock(before + 3n)).not.toBeNull();
    await expect(reader.fetchBlock(node.slot + 5n)).rejects.toThrow(/Block not available/);
    expect(await reader.blockHash(0n)).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/); // the genesis hash
    expect(await reader.finalized?.()).toBeLessThan(await reader.head());
  });
});
