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

  // The address, asset and amount checks of a policy moved with its creation to the console (server/src/withdrawals/policies/policyRoutes.test.ts).
  it('no longer changes spending policies (the console does, as a signed-in person) but still lists them', () => {
    for (const args of [
      ['add', '--company', String(companyId), '--name', 'p', '--kind', 'max_per_transaction', '--asset', 'USDC', '--max', '1'],
      ['enable', '1'],
      ['disable', '1'],
      ['remove', '1'],
    ]) {
      const r = walletd('admin', 'policy', ...args);
      expect([r.status, r.stdout]).toEqual([2, '']);
      expect(r.stderr).toBe(
        `walletd admin policy ${args[0]} was removed: the CLI authenticates nobody, so an owner or admin changes spending policies ` +
          "in the console's Policies page, with a fresh authenticator code (see docs/guide/console.md); " +
          '`walletd admin policy list` still lists them\n',
      );
    }
    expect(walletd('admin', 'policy', 'list', '--company', String(companyId)).json).toEqual([]);
  });

  it('lists no removed command in the help, and a removed one still says where it went (issue 47 §5)', () => {
    for (const args of [
      ['admin'],
      ['admin', 'key'],
      ['admin', 'member'],
      ['admin', 'policy'],
      ['admin', 'request'],
      ['admin', 'encryption-key'],
    ]) {
      const help = walletd(...args, '--help');
      expect(help.status).toBe(0);
      expect(help.stdout).not.toMatch(/removed/);
    }
    expect(walletd('admin', 'key', '--help').stdout).toMatch(/\blist\b/);
    const gone = walletd('admin', 'key', 'create');
    expect(gone.status).toBe(2);
    expect(gone.stderr).toContain('walletd admin key create was removed');
  });

  it('lists --config in the help of serve (and of other commands)', () => {
    const help = walletd('serve', '--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/-c, --config <file>/);
    expect(walletd('admin', 'company', 'create', '--help').stdout).toMatch(/--config <file>/);
  });

  it('says which node dev fund could not reach and why, not only "fetch failed"', async () => {
    const port = await freePort();
    mkdirSync(join(dir, 'devchains'), { recursive: true });
    const info = {
      chain: 'ethereum',
      network: 'devnet',
      rpcUrl: `http://127.0.0.1:${port}`,
      tokens: [{ contract: usdc, symbol: 'USDC', decimals: 6 }],
      genesis: '',
      pid: null,
      settings: { confirmations: 2, pollIntervalMs: 1000, startBlock: 0 },
    };
    writeFileSync(join(dir, 'devchains', 'evm.json'), JSON.stringify(info));
    const r = runWalletd(['dev', 'fund', '--address', '0x000000000000000000000000000000000000dEaD', '--amount', '1'], env);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`the devnet node at http://127.0.0.1:${port} did not answer`);
    expect(r.stderr).toContain('ECONNREFUSED');
    expect(r.stderr).toContain('is walletd serve (npm start) running with "evm" in devnet.chains?');

    // An address the chain's plugin does not accept is refused before the node is asked (issue 47 §5).
    for (const address of ['0xnot-an-address', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', '0x000000000000000000000000000000000000dEa']) {
      const bad = runWalletd(['dev', 'fund', '--address', address, '--amount', '1'], env);
      expect(bad.status).toBe(1);
      expect(bad.stderr).toContain(`--address ${address} is not a valid ethereum/devnet address: nothing was sent`);
      expect(bad.stderr).not.toContain('did not answer');
    }
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
