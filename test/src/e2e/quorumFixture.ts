import type { ChainSettings } from '@walletd/core';
import { createDetectPool, type DetectPool, type Follower } from '@walletd/indexer';
import { addPolicy } from '@walletd/server';
import {
  type Anvil,
  type ConsoleServer,
  type Seeded,
  type TestApp,
  type TestDatabase,
  call,
  createTestDatabase,
  onboardMember,
  seedCompany,
  startAnvil,
  startConsole,
  startTestApp,
  testFollower,
} from '@walletd/test-harness';

export const RECIPIENT = '0x000000000000000000000000000000000000dEaD';

/**
 * What the quorum suites share: anvil followed by the indexer, the API and the console on one
 * database, a company whose treasury holds 5 ETH and a policy asking two approvals above 0.1 ETH.
 */
export async function startQuorumWorld() {
  const t: TestDatabase = await createTestDatabase();
  const anvil: Anvil = await startAnvil();
  const pool: DetectPool = createDetectPool(1);
  const settings: ChainSettings = { chain: 'ethereum', network: 'devnet', rpcUrl: anvil.url, confirmations: 1, startBlock: 0 };
  const app: TestApp = await startTestApp(t.db, { chains: [settings] });
  const con: ConsoleServer = await startConsole(t.db, { chains: [settings] }, app.masterKey);
  const follower: Follower = testFollower(t.db, pool, settings);
  const s: Seeded = await seedCompany(t.db);
  const api = (method: string, path: string, body?: unknown, key = s.rootKey) => call(app.url, method, `/v1${path}`, { key, body });
  const walletId = (await api('POST', '/wallets', { name: 'treasury', chain: 'ethereum', network: 'devnet' })).body.id as number;
  await anvil.send((await api('POST', `/wallets/${walletId}/addresses`)).body.address, 5n * 10n ** 18n);
  await follower.tick();
  await addPolicy(t.db, {
    companyId: s.companyId,
    name: 'two sign-offs above 0.1 ETH',
    kind: 'approval_above',
    walletIds: null,
    assetKey: 'ethereum:devnet:eth',
    threshold: 10n ** 17n,
    approvals: 2,
  });
  const member = (email: string, role: string) => onboardMember(con, t.db, { companyId: s.companyId, email, role });
  type Voter = { b: Awaited<ReturnType<typeof member>>['b'] };
  return {
    t,
    anvil,
    app,
    con,
    follower,
    s,
    api,
    walletId,
    member,
    /** A request for 0.2 ETH (two approvals), proposed by the root key (its creator is the owner). */
    propose: async (amount = '0.2') =>
      String((await api('POST', '/withdrawal-requests', { walletId, asset: 'ETH', toAddress: RECIPIENT, amount })).body.id),
    vote: (m: Voter, id: string, how: 'approve' | 'reject' = 'approve') => m.b.call('POST', `/console/api/requests/${id}/${how}`),
    request: (id: string) => api('GET', `/withdrawal-requests/${id}`),
    close: async () => {
      await con.close();
      await app.close();
      await pool.close();
      await anvil.stop();
      await t.drop();
    },
  };
}

export type QuorumWorld = Awaited<ReturnType<typeof startQuorumWorld>>;
