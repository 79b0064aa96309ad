import { randomBytes } from 'node:crypto';
import { type ChainSettings, MasterKey } from '@walletd/core';
import { createDetectPool } from '@walletd/indexer';
import { type Anvil, startAnvil } from './anvil';
import { startConsole } from './consoleApp';
import { testFollower } from './follower';
import { seedCompany } from './seed';
import { type ConfigOverrides, call, startTestApp } from './testApp';
import { createTestDatabase } from './testDatabase';

/**
 * What the console's withdrawal suites start from: a company whose `treasury` wallet on an anvil
 * devnet holds 5 ETH (seen by a follower), the API and the console sharing one master key and
 * the configuration `over` adds (e.g. `masterKey.pkcs11`, for keys held in a token). Test-only.
 */
export async function startFundedTreasury(over: Omit<ConfigOverrides, 'chains'> = {}) {
  const t = await createTestDatabase();
  const anvil: Anvil = await startAnvil();
  const pool = createDetectPool(1);
  const hexKey = randomBytes(32).toString('hex');
  const settings: ChainSettings = { chain: 'ethereum', network: 'devnet', rpcUrl: anvil.url, confirmations: 1, startBlock: 0 };
  const app = await startTestApp(t.db, { ...over, chains: [settings] }, new MasterKey(Buffer.from(hexKey, 'hex')));
  const con = await startConsole(t.db, { ...over, chains: [settings] }, new MasterKey(Buffer.from(hexKey, 'hex')));
  const follower = testFollower(t.db, pool, settings);
  const s = await seedCompany(t.db);
  const api = (method: string, path: string, body?: unknown, key = s.rootKey) => call(app.url, method, `/v1${path}`, { key, body });
  const walletId = (await api('POST', '/wallets', { name: 'treasury', chain: 'ethereum', network: 'devnet' })).body.id as number;
  const source = (await api('POST', `/wallets/${walletId}/addresses`)).body.address as string;
  await anvil.send(source, 5n * 10n ** 18n);
  await follower.tick();
  return {
    t,
    anvil,
    pool,
    app,
    con,
    follower,
    s,
    walletId,
    /** The wallet's first address (derived, index 0): the one holding the 5 ETH. */
    source,
    hexKey,
    api,
    async close() {
      await con.close();
      await app.close();
      await pool.close();
      await anvil.stop();
      await t.drop();
    },
  };
}

export type FundedTreasury = Awaited<ReturnType<typeof startFundedTreasury>>;
