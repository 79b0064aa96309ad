import { randomBytes } from 'node:crypto';
import { type ChainSettings, type Db, MasterKey, createLogger, createMetrics } from '@walletd/core';
import { type DetectPool, type Follower, createDetectPool } from '@walletd/indexer';
import { type Common, loadPlugins, runSweeps } from '@walletd/server';
import { type Anvil, startAnvil } from './anvil';
import { eventually } from './eventually';
import { expectSchema } from './schemas';
import { type Seeded, seedCompany } from './seed';
import { type CallResult, type TestApp, call, startTestApp, testConfig } from './testApp';
import { testFollower } from './follower';
import { type TestToken, deployTestToken } from './testToken';

/** A display amount in base units (exact: the API's decimals are strings). */
export function baseUnits(decimal: string, decimals: number): bigint {
  const [whole, fraction = ''] = decimal.split('.');
  return BigInt(`${whole}${fraction.padEnd(decimals, '0')}`);
}

/** The fields of a listed withdrawal the sweep tests read. */
export interface SweepWithdrawal {
  id: number;
  kind: string;
  sweepRuleId: number | null;
  status: string;
  fromAddress: string;
  toAddress: string;
  amount: string;
  sourceAddresses: string[];
  fee: { amount: string } | null;
  txHash: string | null;
}

export interface FeedEvent {
  type: string;
  data: { kind?: string; sweepRuleId?: number; withdrawalId?: number; address?: string; asset?: { symbol: string } };
}

export interface SweepBench {
  /** Set by start(); read them inside tests and hooks, not at describe time. */
  common: Common;
  follower: Follower;
  app: TestApp;
  seeded: Seeded;
  /** The chain the bench was started on, as runSweeps takes it. */
  chain: { chain: string; network: string };
  start(db: Db, settings: ChainSettings): Promise<void>;
  stop(): Promise<void>;
  api(method: string, path: string, body?: unknown): Promise<CallResult>;
  newWallet(name: string): Promise<number>;
  newAddress(wallet: number): Promise<string>;
  /** POST a sweep rule; threshold '1' and trigger 'deposit' unless the body says otherwise. */
  addRule(wallet: number, rule: { asset: string; destination: string } & Record<string, unknown>): Promise<CallResult>;
  gasStation(wallet: number): Promise<CallResult>;
  withdrawals(wallet: number): Promise<SweepWithdrawal[]>;
  /** Each rule's lastError, in the list's order. */
  ruleErrors(wallet: number): Promise<(string | null)[]>;
  /**
   * The event feed, checked against its published schema unless told `{ schema: false }`. With
   * `atLeast`, read again until that many events are there: the feed shows an event once every
   * transaction begun before it has ended, and the follower's next round can hide one a moment.
   */
  feed(opts?: FeedOptions): Promise<FeedEvent[]>;
  withdrawalEvents(opts?: FeedOptions): Promise<FeedEvent[]>;
  /** The runner as the indexer leads it, on this chain; `now` picks the schedule window. */
  runSweeps(now?: number): ReturnType<typeof runSweeps>;
}

/**
 * What every sweep and gas-station suite sets up around its chain's node: the real app on the
 * node, the runner's Common as `serve` gives it to the indexer (the same database, config and
 * master key), a follower, and a seeded company. Made at describe time so its helpers can be
 * destructured there; start() in beforeAll once the node's settings are known.
 */
export interface FeedOptions {
  schema?: boolean;
  atLeast?: number;
  /** Which events `atLeast` counts (all by default). */
  of?: (e: FeedEvent) => boolean;
}

/** `extra`: more config for the app and the runner (e.g. `masterKey` settings). */
export function sweepBench(masterKey = new MasterKey(randomBytes(32)), extra: Record<string, unknown> = {}): SweepBench {
  let pool: DetectPool | undefined;
  const bench: SweepBench = {
    common: undefined as unknown as Common,
    follower: undefined as unknown as Follower,
    app: undefined as unknown as TestApp,
    seeded: undefined as unknown as Seeded,
    chain: { chain: '', network: '' },
    async start(db, settings) {
      bench.chain = { chain: settings.chain, network: settings.network };
      pool = createDetectPool(1);
      const over = { chains: [settings], rateLimit: { writesPerKeyPerMinute: 1000 }, ...extra };
      bench.app = await startTestApp(db, over, masterKey);
      bench.common = {
        config: testConfig(over),
        logger: createLogger({ level: 'silent' }),
        db,
        masterKey,
        plugins: loadPlugins(),
        metrics: createMetrics(),
      };
      bench.follower = testFollower(db, pool, settings);
      bench.seeded = await seedCompany(db);
    },
    async stop() {
      await bench.app?.close();
      await pool?.close();
    },
    api: (method, path, body) => call(bench.app.url, method, `/v1${path}`, { key: bench.seeded.rootKey, body }),
    newWallet: async (name) => (await bench.api('POST', '/wallets', { name, ...bench.chain })).body.id as number,
    newAddress: async (wallet) => (await bench.api('POST', `/wallets/${wallet}/addresses`)).body.address as string,
    addRule: (wallet, rule) => bench.api('POST', `/wallets/${wallet}/sweep-rules`, { threshold: '1', trigger: 'deposit', ...rule }),
    gasStation: (wallet) => bench.api('GET', `/wallets/${wallet}/gas-station`),
    withdrawals: async (wallet) =>
      (await bench.api('GET', `/wallets/${wallet}/withdrawals?limit=100`)).body.withdrawals as SweepWithdrawal[],
    ruleErrors: async (wallet) =>
      (await bench.api('GET', `/wallets/${wallet}/sweep-rules`)).body.rules.map((r: { lastError: string | null }) => r.lastError),
    async feed(opts = {}) {
      const read = async () => {
        const { body } = await bench.api('GET', '/events?limit=1000');
        if (opts.schema !== false) expectSchema('EventFeed', body);
        return body.events as FeedEvent[];
      };
      return eventually(read, (events) => events.filter(opts.of ?? (() => true)).length >= (opts.atLeast ?? 0));
    },
    withdrawalEvents: async (opts = {}) => {
      const isWithdrawal = (e: FeedEvent) => e.type.startsWith('withdrawal.');
      return (await bench.feed({ ...opts, of: isWithdrawal })).filter(isWithdrawal);
    },
    runSweeps: (now) => runSweeps(bench.common, bench.chain, () => false, now),
  };
  return bench;
}

/**
 * The EVM suites' node: anvil with a devnet USDC (6 decimals), followed as ethereum/devnet at 2
 * confirmations with that token listed, and `b` started on it. The suites stop `b` and anvil.
 */
export async function startOnAnvilWithUsdc(b: SweepBench, db: Db): Promise<{ anvil: Anvil; usdc: TestToken; settings: ChainSettings }> {
  const anvil = await startAnvil();
  const usdc = await deployTestToken(anvil, 'Devnet USD Coin', 'USDC', 6);
  const settings: ChainSettings = {
    chain: 'ethereum',
    network: 'devnet',
    rpcUrl: anvil.url,
    confirmations: 2,
    startBlock: 0,
    tokens: [{ contract: usdc.address, symbol: 'USDC', decimals: 6 }],
  };
  await b.start(db, settings);
  return { anvil, usdc, settings };
}
