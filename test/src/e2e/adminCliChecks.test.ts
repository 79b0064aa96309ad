import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, freePort, runWalletd, type TestDatabase } from '@walletd/test-harness';

/** What an operator types wrong or misses at the command line, through the real walletd process. */
describe('walletd admin and dev commands: checks and messages', () => {
  let t: TestDatabase;
  let env: Record<string, string>;
  let companyId: number;
  const dir = mkdtempSync(join(tmpdir(), 'walletd-cli-'));
  const configFile = join(dir, 'walletd.json');
  const usdc = '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238';

  beforeAll(async () => {
    t = await createTestDatabase();
    // A followed chain with a token, so symbols resolve as in the API (no node is contacted).
    writeFileSync(
      configFile,
      JSON.stringify({
        chains: [
          {
            chain: 'ethereum',
            network: 'sepolia',
            rpcUrl: 'http://127.0.0.1:9',
            tokens: [{ contract: usdc, symbol: 'USDC', decimals: 6 }],
          },
        ],
      }),
    );
    env = {
      DATABASE_URL: t.url,
      WALLETD_MASTER_KEY: randomBytes(32).toString('hex'),
      WALLETD_BOOTSTRAP: '0',
      WALLETD_DATA_DIR: dir,
      LOG_LEVEL: 'warn',
    };
    const created = walletd('admin', 'company', 'create', '--name', 'Initech', '--plan', 'paid');
    expect(created.status).toBe(0);
    companyId = created.json.id;
  });
  afterAll(async () => {
    await t.drop();
  });

  const walletd = (...args: string[]) => runWalletd(['--config', configFile, ...args], env);
  const policyAdd = (...args: string[]) => walletd('admin', 'policy', 'add', '--company', String(companyId), '--name', 'p', ...args);

  it('refuses a deny list with an address no chain accepts, and checks addresses against --chain', () => {
    const bad = policyAdd('--kind', 'deny_destinations', '--addresses', '0xnotanaddress');
    expect(bad.status).toBe(1);
    expect(bad.stderr).toBe('walletd: "0xnotanaddress" is not a valid address on any chain this service supports\n');
    const evmOnBitcoin = policyAdd(
      '--kind',
      'deny_destinations',
      '--chain',
      'bitcoin',
      '--addresses',
      '0x000000000000000000000000000000000000dEaD',
    );
    expect(evmOnBitcoin.status).toBe(1);
    expect(evmOnBitcoin.stderr).toMatch(/is not a valid address on bitcoin/);
    expect(walletd('admin', 'policy', 'list', '--company', String(companyId)).json).toEqual([]);

    const ok = policyAdd(
      '--kind',
      'deny_destinations',
      '--chain',
      'bitcoin',
      '--network',
      'mainnet',
      '--addresses',
      'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
    );
    expect(ok.status).toBe(0);
    // Stored with the form withdrawals are compared in (the output script), so the list really denies.
    expect(ok.json.params).toEqual({
      addresses: ['bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu'],
      matchKeys: ['0014c0cebcd6c3d3ca8c75dc5ec62ebe55330ef910e2'],
    });
    expect(walletd('admin', 'policy', 'remove', String(ok.json.id)).status).toBe(0);
  });

  it('checks list addresses as the API checks a destination: blanks around one and dogecoin bech32 are refused, nothing stored', () => {
    const address = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu';
    for (const padded of [` ${address}`, `${address}\u00a0`, `${address}, ${address}`]) {
      const r = policyAdd('--kind', 'deny_destinations', '--chain', 'bitcoin', '--addresses', padded);
      expect([r.status, r.stderr]).toEqual([1, expect.stringMatching(/has blanks around it/)]);
    }
    // A bech32 string with a valid checksum: dogecoin has no segwit, so no payment can go there.
    const dogeBech32 = policyAdd(
      '--kind',
      'deny_destinations',
      '--chain',
      'dogecoin',
      '--addresses',
      'doge1qqurswpc8qurswpc8qurswpc8qurswpc8xnkc0f',
    );
    expect([dogeBech32.status, dogeBech32.stderr]).toEqual([1, expect.stringMatching(/is not a valid address on dogecoin/)]);
    expect(walletd('admin', 'policy', 'list', '--company', String(companyId)).json).toEqual([]);
  });

  it('takes --asset as the API does (a symbol such as USDC) and shows amounts in display units with the symbol', async () => {
    const byKey = policyAdd('--kind', 'max_per_transaction', '--asset', 'ethereum:sepolia:eth', '--max', '1.5');
    expect(byKey.status).toBe(0);
    const bySymbol = policyAdd('--kind', 'approval_above', '--asset', 'USDC', '--threshold', '250', '--approvals', '2');
    expect({ status: bySymbol.status, stderr: bySymbol.stderr }).toEqual({ status: 0, stderr: '' });
    expect(bySymbol.json).toMatchObject({
      assetKey: `ethereum:sepolia:${usdc.toLowerCase()}`,
      params: { threshold: '250 USDC', approvals: 2 },
      asset: { key: `ethereum:sepolia:${usdc.toLowerCase()}`, symbol: 'USDC', decimals: 6 },
    });
    const listed = walletd('admin', 'policy', 'list', '--company', String(companyId)).json;
    expect(listed.map((p: { params: Record<string, unknown> }) => p.params)).toEqual([
      { max: '1.5 ETH' },
      { threshold: '250 USDC', approvals: 2 },
    ]);
    // Stored in base units all the same: what the engine compares.
    const stored = await t.db('spending_policies').where({ id: bySymbol.json.id }).first('params');
    expect(stored.params).toEqual({ threshold: '250000000', approvals: 2 });
    const unknown = policyAdd('--kind', 'max_per_transaction', '--asset', 'DOGE', '--max', '1');
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(/no followed chain \(ethereum\/sepolia\) has an asset with the symbol "DOGE"/);
  });

  it('lists --config in the help of serve (and of other commands)', () => {
    const help = walletd('serve', '--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/-c, --config <file>/);
    expect(walletd('admin', 'company', 'create', '--help').stdout).toMatch(/--config <file>/);
  });

  it('says which node dev fund could not reach and why, not only "fetch failed"', async () => {
    const port = await freePort();
    mkdirSync(join(dir, 'anvil'), { recursive: true });
    writeFileSync(join(dir, 'anvil', 'devnet.json'), JSON.stringify({ rpcUrl: `http://127.0.0.1:${port}`, usdc }));
    const r = runWalletd(['dev', 'fund', '--address', '0x000000000000000000000000000000000000dEaD', '--amount', '1'], env);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`the devnet node at http://127.0.0.1:${port} did not answer`);
    expect(r.stderr).toContain('ECONNREFUSED');
    expect(r.stderr).toContain('is walletd serve (npm start) running with the devnet?');
  });

  it('creates a company on the free plan by default and says what each plan means', () => {
    const created = walletd('admin', 'company', 'create', '--name', 'Hooli');
    expect(created.status).toBe(0);
    expect(created.json.plan).toBe('free');
    expect(created.stderr).toContain(`company ${created.json.id} has plan free: test networks only`);
    const none = walletd('admin', 'company', 'create', '--name', 'Dormant', '--plan', 'none');
    expect(none.json.plan).toBe('none');
    expect(none.stderr).toContain('answers 402 plan_required');
  });
});
