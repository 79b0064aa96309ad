import { mkdtempSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, freePort, seedCompany, spawnWalletd, type TestDatabase, type WalletdProcess } from '@walletd/test-harness';

/**
 * Two API processes on one database share every limit. Limits are lowered by config so the test
 * stays short; windows are fixed minutes of the database clock, so we start right after one opens.
 */
describe('rate limits across two API processes', () => {
  let t: TestDatabase;
  const servers: WalletdProcess[] = [];
  const bases: string[] = [];

  beforeAll(async () => {
    t = await createTestDatabase();
    const dir = mkdtempSync(join(tmpdir(), 'walletd-rl-'));
    const config = join(dir, 'walletd.json');
    writeFileSync(config, JSON.stringify({ rateLimit: { perIpPerMinute: 40, writesPerKeyPerMinute: 4 }, bootstrap: false }));
    const masterKey = randomBytes(32).toString('hex');
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const p = spawnWalletd(['serve', '--config', config], {
        DATABASE_URL: t.url,
        WALLETD_DEVNET: '0',
        WALLETD_MASTER_KEY: masterKey,
        PORT: String(port),
        HOST: '127.0.0.1',
      });
      servers.push(p);
      bases.push(`http://127.0.0.1:${port}/v1`);
    }
    await Promise.all(servers.map((s) => s.waitFor(/API listening/)));
  });
  afterAll(async () => {
    for (const s of servers) s.child.kill('SIGTERM');
    await Promise.all(servers.map((s) => s.exited));
    await t.drop();
  });

  /** Waits for a fresh window when fewer than 20 s of the current one remain. */
  async function atWindowStart(): Promise<void> {
    const { rows } = await t.db.raw(`select 60 - extract(epoch from now())::numeric % 60 as left`);
    const left = Number(rows[0].left);
    if (left < 20) await new Promise((r) => setTimeout(r, left * 1000 + 250));
  }

  it('counts value-moving writes per key and endpoint across processes, then 429 with Retry-After', async () => {
    const s = await seedCompany(t.db);
    await atWindowStart();
    const create = (i: number) =>
      fetch(`${bases[i % 2]}/wallets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${s.rootKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `w${i}`, chain: 'ethereum', network: 'sepolia' }),
      });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await create(i)).status);
    expect(statuses).toEqual([201, 201, 201, 201]);
    const limited = await create(4);
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const body = (await limited.json()) as { statusCode: number; error: string; message: string };
    expect(body).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
    expect(body.message).toMatch(/^Rate limit of 4 value-moving writes per minute exceeded; retry in \d+ seconds$/);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    // Another endpoint has its own budget; reads are not value-moving.
    expect((await fetch(`${bases[1]}/wallets`, { headers: { authorization: `Bearer ${s.rootKey}` } })).status).toBe(200);
    // Another key has its own budget.
    const other = await seedCompany(t.db, 'paid', 'Other');
    const r = await fetch(`${bases[0]}/wallets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${other.rootKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x', chain: 'ethereum', network: 'sepolia' }),
    });
    expect(r.status).toBe(201);
  });

  it('holds the per-IP ceiling across processes, before authentication', async () => {
    await t.db('rate_limit_hits').delete();
    await atWindowStart();
    let lastOk = 0;
    let first429: Response | undefined;
    for (let i = 0; i < 45 && !first429; i++) {
      const res = await fetch(`${bases[i % 2]}/me`);
      if (res.status === 429) first429 = res;
      else {
        expect(res.status).toBe(401);
        lastOk = i + 1;
      }
    }
    expect(lastOk).toBe(40);
    expect(first429?.headers.get('ratelimit-limit')).toBe('40');
    expect(Number(first429?.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
