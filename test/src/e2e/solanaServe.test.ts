import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda } from '@solana-program/token';
import { getAddressDecoder } from '@solana/kit';
import { fromBaseUnits, generateSealingKeyPair, openSealed } from '@walletd/core';
import {
  type SolanaSvmNode,
  type TestDatabase,
  type TestReceiver,
  type WalletdProcess,
  call,
  createTestDatabase,
  eventually,
  freePort,
  seedCompany,
  spawnWalletd,
  startReceiver,
  startSolanaSvm,
} from '@walletd/test-harness';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/**
 * Standard tools, outside walletd: @scure/bip39 (mnemonic to seed), micro-key-producer's SLIP-10
 * (paulmillr's) and @solana/kit's address codec, run by plain node (micro-key-producer ships ES
 * modules only, which jest cannot load here). Prints the address at each path.
 */
async function restoreWithStandardTools(mnemonic: string, paths: string[]): Promise<string[]> {
  const script = `
    const { HDKey } = require('micro-key-producer/slip10.js');
    const { mnemonicToSeedSync } = require('@scure/bip39');
    const { getAddressDecoder } = require('@solana/kit');
    const { mnemonic, paths } = JSON.parse(process.argv[1]);
    const seed = mnemonicToSeedSync(mnemonic);
    console.log(JSON.stringify(paths.map((p) => getAddressDecoder().decode(HDKey.fromMasterSeed(seed).derive(p).publicKeyRaw))));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', script, JSON.stringify({ mnemonic, paths })], { cwd: __dirname });
  return JSON.parse(stdout) as string[];
}

const ata = async (owner: string, mint: string) =>
  (await findAssociatedTokenPda({ owner: owner as never, mint: mint as never, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0] as string;

interface Envelope {
  type: string;
  data: {
    txHash?: string;
    amount?: string;
    toAddress?: string;
    asset?: { key: string };
    withdrawalId?: number;
    fee?: { amount: string; asset: { key: string } };
  };
}

/**
 * The real `walletd serve` (API, indexer, dispatcher) with the Solana plugin enabled by name in the
 * config, against the JSON-RPC test adapter over litesvm: deposits of SOL and an SPL token reach a
 * real local receiver as deposit.detected then deposit.confirmed; payouts of SOL and of the token
 * (from a deposit address holding no SOL: the primary address pays the fee) end in
 * withdrawal.broadcast and withdrawal.confirmed with the exact on-chain fee. The wallet secret the
 * API exports re-derives every deposit address with standard tools.
 */
describe('walletd serve on Solana (litesvm behind the JSON-RPC adapter)', () => {
  let t: TestDatabase;
  let node: SolanaSvmNode;
  let rx: TestReceiver;
  let proc: WalletdProcess | null = null;
  let ticker: NodeJS.Timeout | undefined;
  let base: string;
  let mint: string;
  const hex = randomBytes(32).toString('hex');
  const sealing = generateSealingKeyPair();
  const recipient = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';

  beforeAll(async () => {
    t = await createTestDatabase();
    node = await startSolanaSvm({ finalityDepth: 2, priorityFee: 1_000n });
    mint = await node.createMint(6);
    rx = await startReceiver();
    // A slot every 250 ms, as a cluster makes them (the finalized commitment trails by 2 blocks).
    ticker = setInterval(() => node.produceBlocks(1), 250);
    const dir = mkdtempSync(join(tmpdir(), 'walletd-solana-'));
    const config = join(dir, 'walletd.json');
    writeFileSync(
      config,
      JSON.stringify({
        bootstrap: false,
        devnet: { enabled: false },
        plugins: ['@walletd/plugin-evm', '@walletd/plugin-utxo', '@walletd/plugin-solana'],
        webhooks: { allowCidrs: ['127.0.0.0/8'], pollIntervalMs: 100 },
        chains: [
          {
            chain: 'solana',
            network: 'localnet',
            rpcUrl: node.url,
            startBlock: Number(node.slot) + 1,
            pollIntervalMs: 200,
            tokens: [{ contract: mint, symbol: 'USDC', decimals: 6 }],
          },
        ],
      }),
    );
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    proc = spawnWalletd(['serve', '--config', config], {
      DATABASE_URL: t.url,
      WALLETD_MASTER_KEY: hex,
      PORT: String(port),
      HOST: '127.0.0.1',
    });
    await proc.waitFor(/API listening/);
  });
  afterAll(async () => {
    if (ticker) clearInterval(ticker);
    proc?.child.kill('SIGTERM');
    await proc?.exited;
    await rx?.close();
    await node?.close();
    await t?.drop();
  });

  it('deposits SOL and USDC, pays both out with exact fees, and the exported secret re-derives every address', async () => {
    const s = await seedCompany(t.db);
    await t
      .db('companies')
      .where({ id: s.companyId })
      .update({ encryption_public_key: sealing.publicKeyPem, encryption_key_set_at: t.db.fn.now() });
    const api = (method: string, path: string, body?: unknown) => call(base, method, `/v1${path}`, { key: s.rootKey, body });
    expect((await api('POST', '/webhooks', { type: 'api', config: { url: `${rx.url}/hook` }, events: ['*'] })).status).toBe(201);
    const wallet = (await api('POST', '/wallets', { name: 'sol', chain: 'solana', network: 'localnet' })).body;
    const primary = (await api('POST', `/wallets/${wallet.id}/addresses`)).body;
    const deposit = (await api('POST', `/wallets/${wallet.id}/addresses`)).body;
    expect([primary.path, deposit.path]).toEqual(["m/44'/501'/0'/0'", "m/44'/501'/1'/0'"]);

    // Deposits: SOL to the primary address, USDC to the deposit address's ATA (created by the sender).
    const solTx = await node.sendSol(primary.address, 3_000_000_000n);
    await node.mintTo(mint, deposit.address, 0n, 6);
    const splTx = await node.transferToken(mint, await ata(deposit.address, mint), 2_500_000n, 6);
    const events = (): Envelope[] => rx.requests.map((r) => JSON.parse(r.rawBody) as Envelope);
    const deposits = await eventually(
      async () => events().filter((e) => e.type.startsWith('deposit.')),
      (list) => list.filter((e) => e.type === 'deposit.confirmed').length === 2,
      60_000,
    );
    const of = (tx: string) => deposits.filter((e) => e.data.txHash === tx).map((e) => [e.type, e.data.amount, e.data.toAddress]);
    expect(of(solTx)).toEqual([
      ['deposit.detected', '3', primary.address],
      ['deposit.confirmed', '3', primary.address],
    ]);
    expect(of(splTx)).toEqual([
      ['deposit.detected', '2.5', deposit.address],
      ['deposit.confirmed', '2.5', deposit.address],
    ]);

    // Payouts: SOL from the primary address, USDC from the deposit address (the primary pays the fee).
    const payout = async (body: Record<string, unknown>) => {
      const prepared = await api('POST', `/wallets/${wallet.id}/withdrawals`, body);
      expect(prepared.status).toBe(201);
      const sent = await api('POST', `/withdrawals/${prepared.body.id}/broadcast`);
      expect(sent.status).toBe(200);
      return sent.body as { id: number; txHash: string };
    };
    const primaryBefore = node.svm.getBalance(primary.address as never) as bigint;
    const solOut = await payout({ asset: 'SOL', toAddress: recipient, amount: '0.5', idempotencyKey: 'sol-out-1' });
    const splOut = await payout({
      asset: 'USDC',
      toAddress: recipient,
      amount: '1.25',
      fromAddress: deposit.address,
      idempotencyKey: 'usdc-out-1',
    });
    const done = await eventually(
      async () => events().filter((e) => e.type.startsWith('withdrawal.')),
      (list) => list.filter((e) => e.type === 'withdrawal.confirmed').length === 2,
      60_000,
    );
    const byId = (id: number) => done.filter((e) => e.data.withdrawalId === id);
    expect(byId(solOut.id).map((e) => e.type)).toEqual(['withdrawal.broadcast', 'withdrawal.confirmed']);
    expect(byId(splOut.id).map((e) => e.type)).toEqual(['withdrawal.broadcast', 'withdrawal.confirmed']);
    // The engine's balances: the recipient got exactly the amounts, the primary lost them plus the fees reported.
    expect(node.svm.getBalance(recipient as never)).toBe(500_000_000n);
    const recipientAta = node.svm.getAccount((await ata(recipient, mint)) as never);
    expect(recipientAta.exists && new DataView(recipientAta.data.buffer, recipientAta.data.byteOffset + 64, 8).getBigUint64(0, true)).toBe(
      1_250_000n,
    );
    const fee = (id: number) => {
      const f = byId(id).find((e) => e.type === 'withdrawal.confirmed')?.data.fee;
      expect(f?.asset.key).toBe('solana:localnet:sol');
      const [whole, fraction = ''] = (f?.amount ?? '').split('.');
      return BigInt(`${whole}${fraction.padEnd(9, '0')}`);
    };
    const solFee = fee(solOut.id);
    const splFee = fee(splOut.id);
    const rent = node.svm.minimumBalanceForRentExemption(165n);
    expect(splFee).toBeGreaterThan(rent); // the new ATA's rent is part of the cost
    expect(primaryBefore - (node.svm.getBalance(primary.address as never) as bigint)).toBe(500_000_000n + solFee + splFee);
    expect(node.svm.getBalance(deposit.address as never) ?? 0n).toBe(0n);

    // The exported secret, opened with the company's key, re-derives every address at its path with standard tools.
    const exported = (await api('GET', `/wallets/${wallet.id}/secret`)).body as { sealedSecret: string };
    const mnemonic = openSealed(sealing.privateKeyPem, exported.sealedSecret, `wallet:${wallet.id}`).toString('utf8');
    const listed = (await api('GET', `/wallets/${wallet.id}/addresses`)).body.addresses as { address: string; path: string }[];
    expect(listed.map((a) => a.address)).toEqual([primary.address, deposit.address]);
    expect(
      await restoreWithStandardTools(
        mnemonic,
        listed.map((a) => a.path),
      ),
    ).toEqual(listed.map((a) => a.address));
  });

  it('parallel payouts never promise more than the address holds, and a later deposit pays nothing by itself', async () => {
    const s = await seedCompany(t.db, 'paid', 'Parallel payouts');
    const api = (method: string, path: string, body?: unknown) => call(base, method, `/v1${path}`, { key: s.rootKey, body });
    const wallet = (await api('POST', '/wallets', { name: 'sol-par', chain: 'solana', network: 'localnet' })).body;
    const payer = (await api('POST', `/wallets/${wallet.id}/addresses`)).body.address as string;
    const payee = getAddressDecoder().decode(randomBytes(32));
    const sol = async () =>
      ((await api('GET', `/wallets/${wallet.id}/balances`)).body.balances as { asset: { symbol: string }; [k: string]: unknown }[]).find(
        (b) => b.asset.symbol === 'SOL',
      ) as Record<string, string>;
    await node.sendSol(payer, 1_000_000_000n);
    await eventually(sol, (b) => b.confirmed === '1', 60_000);

    const tries = await Promise.all(
      [1, 2, 3, 4, 5].map((i) =>
        api('POST', `/wallets/${wallet.id}/withdrawals`, { asset: 'SOL', toAddress: payee, amount: '0.9', idempotencyKey: `par-${i}` }),
      ),
    );
    const won = tries.filter((r) => r.status === 201);
    expect(won).toHaveLength(1);
    const refused = tries.filter((r) => r.status === 422);
    expect(refused).toHaveLength(4);
    for (const r of refused) expect(r.body).toMatchObject({ code: 'insufficient_funds', reservedBy: String(won[0]?.body.id) });
    expect((await sol()).available).toBe(refused[0]?.body.available);

    const id = won[0]?.body.id as number;
    expect((await api('POST', `/withdrawals/${id}/broadcast`)).status).toBe(200);
    const done = await eventually(
      async () => (await api('GET', `/withdrawals/${id}`)).body,
      (w) => w.status === 'confirmed',
      60_000,
    );
    const [whole, fraction = ''] = (done.fee.amount as string).split('.');
    const fee = BigInt(`${whole}${fraction.padEnd(9, '0')}`);
    const left = 1_000_000_000n - 900_000_000n - fee;
    const show = (lamports: bigint) => fromBaseUnits(lamports, 9);
    expect(await sol()).toMatchObject({ confirmed: show(left), reserved: '0', available: show(left) });

    // 2 SOL arrive later: the payee still has exactly the one payout, and nothing else was recorded.
    await node.sendSol(payer, 2_000_000_000n);
    await eventually(sol, (b) => b.confirmed === show(left + 2_000_000_000n), 60_000);
    expect(node.svm.getBalance(payee as never)).toBe(900_000_000n);
    expect(await t.db('withdrawals').where({ wallet_id: wallet.id }).pluck('id')).toEqual([id]);
  });
});
