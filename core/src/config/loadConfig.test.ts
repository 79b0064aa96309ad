import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from './loadConfig';

const dir = mkdtempSync(join(tmpdir(), 'walletd-config-'));
const file = (name: string, body: string) => {
  const p = join(dir, name);
  writeFileSync(p, body);
  return p;
};

describe('loadConfig', () => {
  it('uses defaults with no file', () => {
    const c = loadConfig({ env: {} });
    expect(c.server.port).toBe(8080);
    expect(c.database.url).toBeNull();
    expect(c.database).toMatchObject({ minFreeBytes: 536870912, embeddedRestartAttempts: 10, embeddedRestartBackoffMs: 1000 });
    expect(c.rateLimit).toEqual({ perIpPerMinute: 300, writesPerKeyPerMinute: 20 });
  });

  it('merges the file over defaults and the environment over the file', () => {
    const p = file('ok.json', JSON.stringify({ server: { port: 9000 }, log: { level: 'debug' } }));
    const c = loadConfig({ file: p, env: { PORT: '9100', DATABASE_URL: 'postgres://x/y', DATABASE_REPLICA_URL: 'postgres://r/y' } });
    expect(c.server.port).toBe(9100);
    expect(c.server.host).toBe('0.0.0.0');
    expect(c.log.level).toBe('debug');
    expect(c.database.url).toBe('postgres://x/y');
    expect(c.database.replicaUrl).toBe('postgres://r/y');
    expect(c.source).toBe(p);
  });

  it('names the bad field and the file', () => {
    const p = file('bad.json', JSON.stringify({ server: { port: 'eighty' } }));
    expect(() => loadConfig({ file: p, env: {} })).toThrow(new RegExp(`invalid config in ${p}: /server/port must be integer`));
    const q = file('unknown.json', JSON.stringify({ sever: {} }));
    expect(() => loadConfig({ file: q, env: {} })).toThrow(/unknown field "sever"/);
    const r = file('broken.json', '{ nope');
    expect(() => loadConfig({ file: r, env: {} })).toThrow(/is not valid JSON/);
    expect(() => loadConfig({ file: join(dir, 'missing.json'), env: {} })).toThrow(/cannot read config file/);
  });

  it("takes a chain entry's internalTransfers, 'trace' or 'off' only", () => {
    const entry = { chain: 'tron', network: 'mainnet', rpcUrl: 'http://127.0.0.1:8090' };
    const p = file('internal.json', JSON.stringify({ chains: [{ ...entry, internalTransfers: 'off' }] }));
    expect(loadConfig({ file: p, env: {} }).chains[0]?.internalTransfers).toBe('off');
    const q = file('internal-bad.json', JSON.stringify({ chains: [{ ...entry, internalTransfers: 'yes' }] }));
    expect(() => loadConfig({ file: q, env: {} })).toThrow(/\/chains\/0\/internalTransfers must be equal to one of the allowed values/);
  });

  it('takes an EVM network declared in chains[] and names what a declaration lacks', () => {
    const base = { chain: 'base', network: 'mainnet', rpcUrl: 'http://127.0.0.1:8545', family: 'evm', nativeSymbol: 'ETH' };
    const p = file('base.json', JSON.stringify({ chains: [{ ...base, chainId: 8453, confirmations: 10, blockTimeMs: 2000 }] }));
    // The block time is the poll interval when none is set.
    expect(loadConfig({ file: p, env: {} }).chains[0]).toMatchObject({ chainId: 8453, pollIntervalMs: 2000 });
    const q = file('base-no-id.json', JSON.stringify({ chains: [{ ...base, confirmations: 10 }] }));
    expect(() => loadConfig({ file: q, env: {} })).toThrow(
      /\/chains\/0 must have properties chainId, nativeSymbol, confirmations when property family is present/,
    );
    const r = file('base-family.json', JSON.stringify({ chains: [{ ...base, family: 'cosmos', chainId: 1, confirmations: 1 }] }));
    expect(() => loadConfig({ file: r, env: {} })).toThrow(/\/chains\/0\/family must be equal to one of the allowed values/);
  });

  it('refuses a delivery lease shorter than twice the attempt timeout', () => {
    const p = file('lease.json', JSON.stringify({ webhooks: { timeoutMs: 10000, leaseMs: 15000 } }));
    expect(() => loadConfig({ file: p, env: {} })).toThrow(
      /\/webhooks\/leaseMs \(15000\) must be at least twice \/webhooks\/timeoutMs \(10000\)/,
    );
  });

  it('takes signers.awsKms as a region and an endpoint, never a credential', () => {
    expect(loadConfig({ env: {} }).signers).toEqual({ awsKms: null });
    const p = file(
      'kms.json',
      JSON.stringify({ signers: { awsKms: { region: 'eu-west-1', endpoint: 'https://vpce-1.kms.eu-west-1.vpce.amazonaws.com' } } }),
    );
    expect(loadConfig({ file: p, env: {} }).signers.awsKms).toEqual({
      region: 'eu-west-1',
      endpoint: 'https://vpce-1.kms.eu-west-1.vpce.amazonaws.com',
    });
    const q = file('kms-keys.json', JSON.stringify({ signers: { awsKms: { region: 'eu-west-1', secretAccessKey: 'x' } } }));
    expect(() => loadConfig({ file: q, env: {} })).toThrow(/\/signers\/awsKms/);
    const r = file('kms-region.json', JSON.stringify({ signers: { awsKms: { region: 'Ireland' } } }));
    expect(() => loadConfig({ file: r, env: {} })).toThrow(/\/signers\/awsKms/);
  });

  it('names a bad environment variable', () => {
    expect(() => loadConfig({ env: { PORT: 'abc' } })).toThrow(/PORT="abc" is not an integer/);
    expect(() => loadConfig({ env: { LOG_LEVEL: 'loud' } })).toThrow(/\/log\/level/);
  });
});
