import { SWEEP_TICK_MS, runSweeps } from '../sweeps/index';
import { AUTO_BUMP_TICK_MS, runAutoBumps } from '../withdrawals/autoBump';
import type { Server } from 'node:http';
import {
  BaseError,
  ConfigError,
  type Db,
  type WalletdConfig,
  createLogger,
  countMasterKeyUnwraps,
  countNodeCalls,
  createMetrics,
  loadConfig,
} from '@walletd/core';
import { createApp } from '../app';
import { createDispatcher, type Dispatcher } from '../webhooks/dispatcher/dispatcher';
import { createIndexer, type Indexer } from '@walletd/indexer';
import type { Common } from '../platform/context';
import { loadPlugins } from '../platform/plugins';
import { startDevnetMailbox } from '../devnet/devnetMailbox';
import { checkPlaygroundPlugins, knownPlaygroundChains, type Playground, playgroundOn, startPlayground } from '../devnet/playground';
import { openRuntime } from '../platform/runtime';
import { createConsoleApp } from '../consoleServer/consoleApp';
import { bootstrapIfEmpty } from '../members/links/bootstrap';
import { checkLedger } from '../funds/checkLedger';
import { chainReconciler } from '../reconciliation/index';
import { consoleLinkUrl } from '../members/links/consoleUrl';
import { bootstrapBanner } from './bootstrapBanner';
import { listen } from './listen';
import { createProbesApp } from '../platform/health/probesApp';
import { nodeVersionWarning } from './nodeVersion';
import { startTracing } from '../platform/tracing/startTracing';

/** Roles this build can run. Each later role (dispatcher, indexer) registers here. */
export const ROLES = ['api', 'dispatcher', 'indexer', 'console'] as const;
export type ServeRole = (typeof ROLES)[number];
/** What `serve` (and `npm start`) runs when not told: everything, the console included. */
export const DEFAULT_ROLES: readonly ServeRole[] = ['api', 'dispatcher', 'indexer', 'console'];

export function parseRoles(text: string): ServeRole[] {
  const roles = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const r of roles) {
    if (!(ROLES as readonly string[]).includes(r))
      throw new BaseError('usage_invalid', `unknown role "${r}"; this build runs: ${ROLES.join(', ')}`);
  }
  if (!roles.length) throw new BaseError('usage_invalid', 'at least one role is required');
  return roles as ServeRole[];
}

export interface ServeOptions {
  config?: string;
  roles: string;
}

export async function serve(opts: ServeOptions): Promise<void> {
  const config = loadConfig({ file: opts.config });
  const roles = parseRoles(opts.roles);
  // Each role's component names itself (`role: api`, `dispatcher`, `indexer`) on the role-less root;
  // the process's own lines (start, database, shutdown) name every role it runs. One key either way.
  const root = createLogger({ level: config.log.level });
  const logger = root.child({ role: roles.join(',') });
  logger.info({ config: config.source, dataDir: config.dataDir, roles }, 'walletd starting');
  const oldNode = nodeVersionWarning();
  if (oldNode) logger.warn({ node: process.versions.node }, oldNode);
  // Plugins are checked before anything starts: a bad plugin stops start-up with its name.
  const plugins = loadPlugins(config.plugins, config.chains);
  // So is each configured chain's reader (made now, connected on first use): a node URL its plugin
  // cannot use (XRP's WebSocket client given http://) stops start-up naming the chain, where it
  // answered 500 at the first withdrawal.
  for (const c of config.chains) {
    try {
      plugins.readerFor(c);
    } catch (e) {
      throw new ConfigError(`chains[] ${c.chain}/${c.network}: ${(e as Error).message}`);
    }
  }
  checkPlaygroundPlugins(config, plugins);
  const metrics = createMetrics();
  // Traces only with an OTLP endpoint configured (docs/operate/monitoring.md, "Traces").
  const tracing = startTracing(roles, logger, metrics);
  const rt = await openRuntime(config, logger, { createCluster: true, supervise: { metrics } });
  countMasterKeyUnwraps(metrics, rt.masterKey);
  countNodeCalls(metrics);
  const common: Common = {
    config,
    logger: root,
    db: rt.db,
    reads: rt.reads,
    ...(rt.primaryReads ? { primaryReads: rt.primaryReads } : {}),
    masterKey: rt.masterKey,
    plugins,
    metrics,
    databaseHealth: rt.databaseHealth,
  };
  let devnet: Playground | undefined;
  let mailbox: { port: number; stop(): Promise<void> } | undefined;
  let server: Server | undefined;
  let consoleServer: Server | undefined;
  let probesServer: Server | undefined;
  let dispatcher: Dispatcher | undefined;
  let indexer: Indexer | undefined;
  const stores: { shutdown(): void }[] = [];
  // Read before the local chains fill chains[] (then playgroundOn no longer says so).
  const devnetRuns = playgroundOn(config);
  try {
    if (devnetRuns) {
      if (roles.includes('indexer')) {
        // The process that indexes the local chains (devnet.chains) runs them.
        devnet = await startPlayground(config, logger, rt.db);
        config.chains = devnet.chains;
      } else {
        // Other roles only need to know them (assets for balances, reads).
        config.chains = knownPlaygroundChains(config);
      }
    }
    if (devnetRuns && !config.mail.smtp && roles.includes('console')) {
      // Devnet only: links are mailed to a local catch-all inbox, as they would be to the invitee.
      mailbox = await startDevnetMailbox(config.dataDir, config.devnet.mailPort, logger);
      config.mail.smtp = { host: '127.0.0.1', port: mailbox.port, secure: false, user: null, passwordFile: null };
      logger.info({ port: mailbox.port }, 'devnet mail: invitation and reset links go to a local inbox (read it: walletd dev inbox)');
    }
    logger.info(
      rt.embedded ? { database: 'embedded', dataDir: rt.embedded.dataDir } : { database: 'external' },
      rt.embedded ? `data lives in ${rt.embedded.dataDir}` : 'using DATABASE_URL',
    );

    // The console listens before the API so that the owner's link printed at first start opens at once.
    let consolePort = config.console.port;
    if (roles.includes('console')) {
      consoleServer = await listen(createConsoleApp(common), config.console.port, config.console.host, {
        portKnob: 'WALLETD_CONSOLE_PORT or console.port',
        ...httpDeadlines(config),
      });
      const addr = consoleServer.address();
      if (typeof addr === 'object' && addr) consolePort = addr.port;
      logger.info({ port: consolePort }, 'console listening (pages at /console/, API at /console/api)');
    }

    if (roles.includes('api')) {
      if (config.bootstrap) {
        const created = await bootstrapIfEmpty(rt.db, { nowMs: Date.now(), ttlMs: config.console.linkTtlMs });
        if (created) {
          const link = consoleLinkUrl(config.console.host, consolePort, created.ownerLinkToken);
          process.stdout.write(bootstrapBanner(created.key, config.server.port, link, roles.includes('console')));
        }
      }
      const { app, limiters } = createApp(common);
      stores.push(...limiters.stores);
      server = await listen(app, config.server.port, config.server.host, { portKnob: 'PORT or server.port', ...httpDeadlines(config) });
      // Keep-alive sockets beyond a proxy's idle timeout (an idle connection is not held to the request deadlines).
      server.keepAliveTimeout = 65_000;
      const addr = server.address();
      logger.info({ port: typeof addr === 'object' && addr ? addr.port : config.server.port }, 'API listening');
    }

    if (config.server.probesPort !== null) {
      // Probes and metrics for a process that serves no API (docs/operate/deployment.md#probes-for-the-dispatcher-and-the-indexer).
      probesServer = await listen(createProbesApp(common), config.server.probesPort, config.server.host, {
        portKnob: 'WALLETD_PROBES_PORT or server.probesPort',
        ...httpDeadlines(config),
      });
      const addr = probesServer.address();
      logger.info(
        { port: typeof addr === 'object' && addr ? addr.port : config.server.probesPort },
        'probes listening (/healthz, /readyz, /metrics)',
      );
    }

    if (roles.includes('dispatcher')) {
      dispatcher = createDispatcher(common);
      dispatcher.start();
    }
    if (roles.includes('indexer')) {
      if (config.chains.length === 0) logger.info('indexer: no chains configured (chains[] in the config)');
      indexer = createIndexer({
        db: rt.db,
        logger: root,
        registry: plugins,
        chains: config.chains,
        threads: config.indexer.threads,
        leaseTtlMs: config.indexer.leaseTtlMs,
        pipeline: {
          depth: config.indexer.pipelineDepth,
          bytes: config.indexer.pipelineBytes,
          inlineDetectBytes: config.indexer.inlineDetectBytes,
        },
        metrics,
        // Below the disk's floor the indexer writes nothing until space is freed.
        writesPaused: rt.freeSpace ? () => rt.freeSpace?.shortage() ?? Promise.resolve(null) : undefined,
        databaseDir: rt.embedded?.dataDir,
        // The first run soon after the chain is caught up, a quick second look at a drift (docs/guide/reconciliation.md).
        reconciler: chainReconciler({ db: rt.db, config, plugins }),
        // Sweep rules run where the chain is led: one process per chain (docs/guide/sweeps-and-gas.md).
        sweeper: { name: 'sweep', intervalMs: SWEEP_TICK_MS, run: (key, shouldStop) => runSweeps(common, key, shouldStop) },
        // Opt-in per chain (chains[].autoBump): stuck payouts sped up where the chain is led.
        autoBump: { name: 'auto-bump', intervalMs: AUTO_BUMP_TICK_MS, run: (key, shouldStop) => runAutoBumps(common, key, shouldStop) },
        ledgerCheck: {
          name: 'ledger check',
          intervalMs: config.reconciliation.ledgerCheckIntervalMs,
          run: (key, shouldStop) => checkLedger({ db: rt.db, logger: root, metrics }, key, shouldStop),
        },
      });
      indexer.start();
    }
  } catch (err) {
    // A start that fails half-way (a port in use, a node down) stops what it started.
    server?.close();
    consoleServer?.close();
    probesServer?.close();
    await dispatcher?.stop().catch(() => undefined);
    await indexer?.stop().catch(() => undefined);
    await devnet?.stop().catch(() => undefined);
    await mailbox?.stop().catch(() => undefined);
    await rt.close().catch(() => undefined);
    throw err;
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) {
      logger.warn('second signal: exiting at once');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // Every step runs whatever the one before it did: a database that went away (restarted under
    // us) must not leave the devnet or the embedded PostgreSQL running behind a crashed process.
    let clean = true;
    const step = async (name: string, fn: () => Promise<void> | void) => {
      try {
        await fn();
      } catch (err) {
        clean = false;
        logger.error({ err, step: name }, 'shutdown step failed; continuing');
      }
    };
    await step('api', async () => {
      const closing = server ? new Promise<void>((r) => server?.close(() => r())) : Promise.resolve();
      setTimeout(() => server?.closeAllConnections(), 5_000).unref();
      server?.closeIdleConnections();
      await closing;
    });
    await step('console', async () => {
      consoleServer?.closeAllConnections();
      await new Promise<void>((r) => (consoleServer ? consoleServer.close(() => r()) : r()));
    });
    await step('probes', async () => {
      probesServer?.closeAllConnections();
      await new Promise<void>((r) => (probesServer ? probesServer.close(() => r()) : r()));
    });
    await step('dispatcher', () => dispatcher?.stop());
    await step('indexer', () => indexer?.stop());
    await step('devnet', () => devnet?.stop());
    await step('devnet mail', () => mailbox?.stop());
    for (const s of stores) await step('rate-limit store', () => s.shutdown());
    await step('node readers', () => plugins.closeReaders());
    await step('traces', () => tracing?.shutdown());
    await step('database', async () => {
      // The server's close ends when the sockets do, not when the handlers running for them do (a
      // client that gave up leaves its request waiting for a connection): let whatever still uses
      // or waits for the pool finish first, for up to 5 s, so none of it fails as "aborted".
      await poolIdle(rt.db, 5_000);
      await rt.close();
    });
    logger.info({ clean }, 'stopped');
    root.flush();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

/** The API's and the console's deadlines for a request's headers and whole body (docs/operate/faults.md, "Timeouts and the reverse proxy"). */
function httpDeadlines(config: WalletdConfig): { headersTimeoutMs: number; requestTimeoutMs: number } {
  return { headersTimeoutMs: config.server.headersTimeoutMs, requestTimeoutMs: config.server.requestTimeoutMs };
}

/** Resolves once no connection of the knex pool is in use or awaited, or after `ms`. */
async function poolIdle(db: Db, ms: number): Promise<void> {
  const pool = db.client.pool as { numUsed(): number; numPendingAcquires(): number } | undefined;
  const until = Date.now() + ms;
  while (pool && (pool.numUsed() > 0 || pool.numPendingAcquires() > 0) && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 20));
  }
}
