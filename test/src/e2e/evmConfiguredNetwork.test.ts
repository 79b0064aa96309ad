import { createEvmPlugin, createEvmReader } from '@walletd/plugin-evm';
import { Transaction } from 'ethers';
import {
  ANVIL_FUNDER,
  type Anvil,
  GENUINE,
  type Seeded,
  type TestDatabase,
  type TestReceiver,
  type TestToken,
  type WalletdProcess,
  call,
  createTestDatabase,
  deployPayouts,
  deployTestToken,
  eventually,
  seedCompany,
  serveWithConfig,
  signatureChecks,
  startAnvil,
  startReceiver,
} from '@walletd/test-harness';

interface Envelope {
  type: string;
  data: { chain: string; network: string; txHash: string; amount: string; toAddress?: string; withdrawalId?: number; eventType?: string };
}

/** Base, as an operator declares it in chains[]: no plugin ships it (docs/guide/chains.md, "EVM networks by configuration"). */
const base = (rpcUrl: string, extra: Record<string, unknown> = {}) => ({
  chain: 'base',
  network: 'mainnet',
  family: 'evm',
  chainId: 8453,
  nativeSymbol: 'ETH',
  nativeDecimals: 18,
  confirmations: 2,
  finality: 'confirmations',
  blockTimeMs: 100,
  explorerUrl: 'https://basescan.org',
  rpcUrl,
  startBlock: 0,
  ...extra,
});

/**
 * Issue 47 §3: the real `walletd serve` with a `chains[]` entry declaring Base (chain id 8453) on
 * anvil started with that chain id. The configured name is the chain's everywhere: the wallet,
 * its addresses, the deposits' webhooks (native, token, a contract's internal transfer) and a
 * withdrawal signed for chain id 8453 (EIP-155, read back from the node) and confirmed. A node of
 * another chain id stops the chain with `chain_id_mismatch` in /readyz, and nothing is credited.
 */
describe('an EVM network declared in chains[] (Base on anvil --chain-id 8453)', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let usdc: TestToken;
  let rx: TestReceiver;
  let proc: WalletdProcess;
  let url: string;
  let s: Seeded;
  let secret: string;
  let walletId: number;
  let source: string;
  const recipient = '0x000000000000000000000000000000000000dEaD';
  const api = (method: string, path: string, body?: unknown) => call(url, method, `/v1${path}`, { key: s.rootKey, body });
  const received = () => rx.requests.map((r) => JSON.parse(r.rawBody) as Envelope);

  beforeAll(async () => {
    t = await createTestDatabase();
    anvil = await startAnvil(['--chain-id', '8453']);
    usdc = await deployTestToken(anvil, 'USD Coin', 'USDC', 6);
    rx = await startReceiver();
    ({ proc, base: url } = await serveWithConfig(t.url, {
      bootstrap: false,
      devnet: { enabled: false },
      webhooks: { allowCidrs: ['127.0.0.0/8'], pollIntervalMs: 100 },
      chains: [base(anvil.url, { tokens: [{ contract: usdc.address, symbol: 'USDC', decimals: 6 }] })],
    }));
    s = await seedCompany(t.db);
    const hook = await api('POST', '/webhooks', { type: 'api', config: { url: `${rx.url}/hook` }, events: ['*'] });
    expect(hook.status).toBe(201);
    secret = hook.body.signingSecret;
  });
  afterAll(async () => {
    proc?.child.kill('SIGTERM');
    await proc?.exited;
    await rx?.close();
    await anvil?.stop();
    await t?.drop();
  });

  it('serves a wallet and an address on "base"; the served OpenAPI document lists it; an unknown chain is still 422', async () => {
    const wallet = await api('POST', '/wallets', { name: 'base hot', chain: 'base', network: 'mainnet' });
    expect(wallet.status).toBe(201);
    expect(wallet.body).toMatchObject({ chain: 'base', network: 'mainnet' });
    walletId = wallet.body.id;
    const address = await api('POST', `/wallets/${walletId}/addresses`);
    expect(address.status).toBe(201);
    source = address.body.address;
    expect(source).toMatch(/^0x[0-9a-fA-F]{40}$/);
    // The running instance's document lists the chains it serves where a request names one.
    const doc = JSON.stringify((await api('GET', '/openapi.json')).body);
    const chainEnums = [...doc.matchAll(/"enum":\[("[a-z0-9-]+",?)+\]/g)].map((m) => m[0]).filter((e) => e.includes('"ethereum"'));
    expect(chainEnums.length).toBeGreaterThan(0);
    for (const e of chainEnums) expect(e).toContain('"base"');
    const unknown = await api('POST', '/wallets', { name: 'x', chain: 'optimism', network: 'mainnet' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.code).toBe('chain_not_supported');
    expect(unknown.body.message).toContain('base');
  });

  it('native, token and internal-transfer deposits reach the receiver detected then confirmed, named "base"', async () => {
    const ethTx = await anvil.send(source, 2_000_000_000_000_000_000n);
    const usdcTx = await usdc.mint(source, 75_000_000n);
    const payouts = await deployPayouts(anvil);
    const internalTx = await payouts.batch([source], [5_000_000_000_000_000n]);
    await anvil.mine(2);
    const confirmed = await eventually(
      async () => received().filter((e) => e.type === 'deposit.confirmed'),
      (l) => l.length === 3,
    );
    expect(confirmed.map((e) => [e.data.chain, e.data.network, e.data.txHash, e.data.amount, e.data.toAddress]).sort()).toEqual(
      [
        ['base', 'mainnet', ethTx, '2', source],
        ['base', 'mainnet', usdcTx, '75', source],
        ['base', 'mainnet', internalTx, '0.005', source],
      ].sort(),
    );
    expect(received().filter((e) => e.type === 'deposit.detected')).toHaveLength(3);
    for (const r of rx.requests) expect(signatureChecks(r, secret)).toEqual(GENUINE);
    const balances = (await api('GET', `/wallets/${walletId}/balances`)).body.balances as {
      asset: { symbol: string };
      confirmed: string;
    }[];
    expect(Object.fromEntries(balances.map((b) => [b.asset.symbol, b.confirmed]))).toEqual({ ETH: '2.005', USDC: '75' });
  });

  it('a withdrawal is prepared, signed for chain id 8453 (EIP-155) and confirmed, its events named "base"', async () => {
    const prepared = await api('POST', `/wallets/${walletId}/withdrawals`, {
      asset: 'ETH',
      toAddress: recipient,
      amount: '0.25',
      idempotencyKey: 'base-1',
    });
    expect(prepared.status).toBe(201);
    const id = prepared.body.id as number;
    expect(prepared.body).toMatchObject({ chain: 'base', network: 'mainnet' });
    const signed = await api('POST', `/withdrawals/${id}/sign`);
    expect(signed.body.status).toBe('signed');
    expect((await api('POST', `/withdrawals/${id}/broadcast`)).status).toBe(200);
    const onNode = await anvil.rpc<{ chainId: string }>('eth_getTransactionByHash', [signed.body.txHash]);
    expect(BigInt(onNode.chainId)).toBe(8453n);
    const raw = await anvil.rpc<string>('debug_getRawTransaction', [signed.body.txHash]);
    expect(Transaction.from(raw).chainId).toBe(8453n);
    await anvil.mine(2);
    const events = await eventually(
      async () => received().filter((e) => e.data.withdrawalId === id),
      (l) => l.some((e) => e.type === 'withdrawal.confirmed'),
    );
    expect(events.every((e) => e.data.chain === 'base' && e.data.network === 'mainnet')).toBe(true);
    expect(BigInt(await anvil.rpc<string>('eth_getBalance', [recipient, 'latest']))).toBe(250_000_000_000_000_000n);
    expect((await api('GET', `/withdrawals/${id}`)).body.status).toBe('confirmed');
  });

  it('the gas station tops up a token-only address and a sweep rule moves its USDC, both on "base"', async () => {
    // A wallet of its own: its one token holder is the address the rule sweeps.
    const sweeping = (await api('POST', '/wallets', { name: 'base sweeps', chain: 'base', network: 'mainnet' })).body.id as number;
    const treasury = (await api('POST', `/wallets/${sweeping}/addresses`)).body.address as string;
    const holder = (await api('POST', `/wallets/${sweeping}/addresses`)).body.address as string;
    const station = (await api('GET', `/wallets/${sweeping}/gas-station`)).body.address as string;
    await anvil.send(station, 10n ** 18n);
    await anvil.mine(2);
    const rule = await api('POST', `/wallets/${sweeping}/sweep-rules`, {
      asset: 'USDC',
      destination: treasury,
      threshold: '1',
      trigger: 'deposit',
    });
    expect(rule.status).toBe(201);
    await usdc.mint(holder, 40_000_000n);
    const tokenOf = async (address: string) =>
      BigInt(
        await anvil.rpc<string>('eth_call', [
          { to: usdc.address, data: `0x70a08231${address.slice(2).toLowerCase().padStart(64, '0')}` },
          'latest',
        ]),
      );
    type Listed = { kind: string; status: string; chain: string; fromAddress: string; toAddress: string; amount: string };
    const list = async () => {
      await anvil.mine(1);
      return (await api('GET', `/wallets/${sweeping}/withdrawals?limit=100`)).body.withdrawals as Listed[];
    };
    // Each look mines a block. The deposit confirms and the station tops the holder up (it holds no ETH for gas).
    const toppedUp = await eventually(list, (l) => l.some((w) => w.kind === 'gas_topup' && w.status === 'confirmed'));
    expect(toppedUp.find((w) => w.kind === 'gas_topup')).toMatchObject({ chain: 'base', fromAddress: station, toAddress: holder });
    // The next deposit triggers the rule again, and the holder now pays its own gas: everything goes to the treasury.
    await usdc.mint(holder, 2_000_000n);
    const swept = await eventually(list, (l) => l.some((w) => w.kind === 'sweep' && w.status === 'confirmed'));
    expect(swept.find((w) => w.kind === 'sweep')).toMatchObject({ chain: 'base', fromAddress: holder, toAddress: treasury, amount: '42' });
    expect([await tokenOf(treasury), await tokenOf(holder)]).toEqual([42_000_000n, 0n]);
  });
});

describe('a node whose chain id is not the declared one', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let proc: WalletdProcess;
  let url: string;
  afterAll(async () => {
    proc?.child.kill('SIGTERM');
    await proc?.exited;
    await anvil?.stop();
    await t?.drop();
  });

  it('stops the chain at start with chain_id_mismatch, named in /readyz, and indexes nothing', async () => {
    t = await createTestDatabase();
    anvil = await startAnvil(); // chain id 31337
    ({ proc, base: url } = await serveWithConfig(t.url, {
      bootstrap: false,
      devnet: { enabled: false },
      chains: [base(anvil.url)],
    }));
    const ready = await eventually(
      async () =>
        (await fetch(`${url}/readyz`)).json() as Promise<{ chains?: { chain: string; reason?: string; halted?: { message: string } }[] }>,
      (b) => b.chains?.some((c) => c.reason === 'chain_id_mismatch') === true,
      // The follower's first round comes after start-up work; under a full run's load that took over 10 s.
      60_000,
    );
    const entry = ready.chains?.find((c) => c.chain === 'base');
    expect(entry?.halted?.message).toContain('reports chain id 31337, chains[] declares base/mainnet with chainId 8453');
    expect(await t.db('recent_blocks').where({ chain: 'base' }).count('* as n').first()).toEqual({ n: 0 });
  });

  it("the plugin builds nothing to sign for the declared network from that node (its chain id would be the node's)", async () => {
    const plugin = createEvmPlugin({
      configuredNetworks: [
        {
          chain: 'base',
          network: 'mainnet',
          family: 'evm',
          chainId: 8453,
          native: { symbol: 'ETH', decimals: 18 },
          defaultConfirmations: 2,
          finality: 'confirmations',
          testnet: false,
        },
      ],
    });
    const intent = {
      chain: 'base',
      network: 'mainnet',
      asset: { key: 'base:mainnet:native', symbol: 'ETH', decimals: 18, contractAddress: null },
      outputs: [{ to: '0x000000000000000000000000000000000000dEaD', amount: 1n }],
      sources: [ANVIL_FUNDER],
    };
    await expect(plugin.withdrawals?.build(intent, createEvmReader({ rpcUrl: anvil.url }))).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringContaining('reports chain id 31337, chains[] declares 8453'),
    });
  });
});
