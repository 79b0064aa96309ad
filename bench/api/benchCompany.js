const { randomBytes } = require('node:crypto');
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { ALL_ACTIONS, MasterKey, createDb, migrateLatest } = require('@walletd/core');
const { addMember, createApiKey, createCompany, createWallet, loadPlugins } = require('@walletd/server');

/**
 * What every `api` bench (main, ab, inProcess) reads: the database migrated, a company with an
 * owner, an all-actions key and ten wallets, and the `walletd.json` its servers start with (the
 * per-IP limit stays on, its store written per request, but high enough never to refuse the bench).
 * The load generator stands in for a proxy on loopback (`server.trustProxy`), so the per-IP limiter
 * counts each request under its `X-Forwarded-For` client address, as `BENCH_CLIENTS` intends; without
 * it every request counted under 127.0.0.1 on one row (before 2026-11-25's third session).
 */
async function seedBenchCompany(url, dir) {
  const plugins = loadPlugins();
  const masterHex = randomBytes(32).toString('hex');
  const db = createDb({ url });
  let key;
  let companyId;
  try {
    await migrateLatest(db);
    const company = await createCompany(db, { name: 'Bench', plan: 'paid' });
    companyId = company.id;
    await addMember(db, { companyId: company.id, email: 'owner@bench.example', role: 'owner' });
    ({ key } = await createApiKey(db, { companyId: company.id, name: 'bench', actions: ALL_ACTIONS }));
    const masterKey = new MasterKey(Buffer.from(masterHex, 'hex'));
    for (let i = 0; i < 10; i++)
      await createWallet(db, masterKey, { companyId: company.id, name: `w${i}`, chain: 'ethereum', network: 'sepolia' }, plugins);
  } finally {
    await db.destroy();
  }
  const configPath = join(dir, 'walletd.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      bootstrap: false,
      devnet: { enabled: false },
      chains: [],
      server: { trustProxy: ['127.0.0.1'] },
      rateLimit: { perIpPerMinute: 1_000_000_000, writesPerKeyPerMinute: 20 },
    }),
  );
  return { key, masterHex, configPath, plugins, companyId };
}

module.exports = { seedBenchCompany };
