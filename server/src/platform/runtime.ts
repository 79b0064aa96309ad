import {
  BaseError,
  type BoundedReads,
  type ClusterSupervisor,
  createDatabaseWatch,
  createDb,
  type DatabaseWatchOptions,
  createFreeSpaceFloor,
  fileFreeBytes,
  type FreeSpaceFloor,
  openMasterKey,
  migrateLatest,
  startEmbeddedPostgres,
  type Db,
  type EmbeddedPostgresHandle,
  type Logger,
  type MasterKey,
  type Metrics,
  superviseEmbeddedPostgres,
  type WalletdConfig,
} from '@walletd/core';
import { createDatabaseHealth, type DatabaseHealth } from './health/databaseHealth';
import { type ClockSkew, createClockSkew } from './health/clockSkew';
import { openHistoryReads } from './historyReadsPool';

export interface Runtime {
  db: Db;
  /** The API's reads that grow with history, on their own pool (`database.readPoolMax`, `readTimeoutMs`), on `replicaUrl` if set. */
  reads: BoundedReads;
  /** Reads that must see the primary (the event feed), under the reads' limits (historyReadsPool.ts). */
  primaryReads?: BoundedReads;
  masterKey: MasterKey;
  embedded: EmbeddedPostgresHandle | null;
  /** The embedded cluster's disk floor (`database.minFreeBytes`); null with DATABASE_URL (that disk is not ours to see). */
  freeSpace: FreeSpaceFloor | null;
  /** Read by the probes: the supervisor's state and the floor. */
  databaseHealth: DatabaseHealth;
  close(): Promise<void>;
}

/**
 * Database (the configured server, or the embedded one), migrations to the latest version, and
 * the master key checked against the database: a start with the wrong key fails here, not at the
 * first withdrawal.
 */
export interface RuntimeOptions {
  /**
   * Create the embedded cluster when the data directory holds none: `serve` and `migrate` do;
   * other commands refuse, so a command run from the wrong directory does not set up an empty one.
   */
  createCluster: boolean;
  /**
   * Watch the embedded cluster and start it again when it dies (`serve`): a long-running process
   * must survive it. Short commands do not: they fail and are run again.
   */
  supervise?: { metrics?: Metrics };
}

export async function openRuntime(config: WalletdConfig, logger: Logger, options: RuntimeOptions): Promise<Runtime> {
  let embedded: EmbeddedPostgresHandle | null = null;
  let url = config.database.url;
  if (!url) {
    embedded = await startEmbeddedPostgres({
      dataDir: config.dataDir,
      port: config.database.embeddedPort,
      logger,
      create: options.createCluster,
    });
    url = embedded.url;
  }
  const db = createDb({
    url,
    poolMax: config.database.poolMax,
    preparedStatements: config.database.preparedStatements,
    logger,
    // Deadlines sized for an API (docs/operate/faults.md, "Database deadlines"): a hung server fails statements, not hangs them.
    queryTimeoutMs: config.database.queryTimeoutMs,
    acquireTimeoutMs: config.database.acquireTimeoutMs,
  });
  const history = openHistoryReads(config, url, db, logger);
  // The database's clock against ours, measured by the watch (docs/operate/faults.md, "Clock skew").
  const clock = options.supervise ? createClockSkew(config.clock.maxSkewMs, logger, options.supervise.metrics) : null;
  const watch = clock ? createDatabaseWatch(watchOptions(config, url, logger, clock)) : null;
  let closeKey = () => {};
  try {
    const applied = await migrate(url, logger);
    if (applied.length) logger.info({ migrations: applied }, 'database migrated');
    watch?.start();
    const source = openMasterKey(config);
    closeKey = source.close;
    if (source.created) {
      logger.warn({ file: source.origin }, 'created a new master key; back it up: without it wallet secrets cannot be opened');
    }
    await checkMasterKey(db, source.key, source.origin, logger);
    const freeSpace = embedded ? freeSpaceFloor(config, embedded.dataDir, options.supervise?.metrics) : null;
    const supervisor = embedded && options.supervise ? supervise(config, embedded, logger, freeSpace, options.supervise.metrics) : null;
    return {
      db,
      reads: history.reads,
      ...(history.primaryReads ? { primaryReads: history.primaryReads } : {}),
      masterKey: source.key,
      embedded,
      freeSpace,
      databaseHealth: createDatabaseHealth(supervisor, freeSpace, watch, config.database, clock),
      close: async () => {
        // Stopped on purpose from here on: not a death to restart.
        await watch?.stop();
        await supervisor?.stop();
        await history.destroy();
        await db.destroy();
        await embedded?.stop();
        source.close();
      },
    };
  } catch (e) {
    closeKey();
    await watch?.stop();
    await history.destroy();
    await db.destroy();
    await embedded?.stop();
    throw e;
  }
}

/** Migrations on a pool of their own: a long one (an index on a big table) is not held to `queryTimeoutMs`. */
async function migrate(url: string, logger: Logger): Promise<string[]> {
  const db = createDb({ url, poolMax: 1, logger });
  try {
    return await migrateLatest(db);
  } finally {
    await db.destroy();
  }
}

async function checkMasterKey(db: Db, key: MasterKey, origin: string, logger: Logger): Promise<void> {
  const fingerprint = key.fingerprint();
  await db('settings').insert({ key: 'master_key_fingerprint', value: fingerprint }).onConflict('key').ignore();
  const row = await db('settings').where({ key: 'master_key_fingerprint' }).first('value');
  if (row?.value === fingerprint) return;
  // A rotation under way: the database is still keyed to the previous key until `keys verify` passes.
  if (key.previous && row?.value === key.previous.fingerprint()) {
    logger.warn('master key rotation under way: run walletd keys rotate, then walletd keys verify (docs/operate/keys-and-hsms.md)');
    return;
  }
  const from =
    origin === 'WALLETD_MASTER_KEY'
      ? 'WALLETD_MASTER_KEY (it wins over any key file)'
      : origin.startsWith('the key "')
        ? origin
        : `the key file ${origin}`;
  throw new BaseError(
    'config_invalid',
    `the master key from ${from} does not match this database: the database was set up with another key, and the wallet secrets in it open only with that one; give that key (WALLETD_MASTER_KEY, masterKeyFile / <dataDir>/master.key from the first start, or masterKey.pkcs11), or name it as masterKey.previous to rotate; refusing to start`,
  );
}

function freeSpaceFloor(config: WalletdConfig, pgDir: string, metrics: Metrics | undefined): FreeSpaceFloor {
  // Test knob (docs/development.md): free bytes read from a file instead of statfs.
  const knob = process.env.WALLETD_TEST_FREE_BYTES_FILE;
  const floor = createFreeSpaceFloor({
    path: pgDir,
    floorBytes: config.database.minFreeBytes,
    ...(knob ? { freeBytes: fileFreeBytes(knob) } : {}),
  });
  if (!metrics) return floor;
  return {
    ...floor,
    shortage: async () => {
      const shortage = await floor.shortage();
      metrics.diskBelowFloor.set(shortage ? 1 : 0);
      return shortage;
    },
  };
}

function watchOptions(config: WalletdConfig, url: string, logger: Logger, clock: ClockSkew): DatabaseWatchOptions {
  return {
    url,
    logger,
    onClock: (skewMs) => clock.sample(skewMs),
    // Often enough that /readyz, which waits on the watch's verdict, answers within about a second.
    intervalMs: 500,
    unresponsiveAfterMs: config.database.unresponsiveAfterMs,
  };
}

function supervise(
  config: WalletdConfig,
  embedded: EmbeddedPostgresHandle,
  logger: Logger,
  freeSpace: FreeSpaceFloor | null,
  metrics: Metrics | undefined,
): ClusterSupervisor {
  metrics?.embeddedPostgresUp.set(1);
  return superviseEmbeddedPostgres(embedded, {
    logger,
    backoffMs: config.database.embeddedRestartBackoffMs,
    maxAttempts: config.database.embeddedRestartAttempts,
    diskShortage: freeSpace ? () => freeSpace.shortage() : undefined,
    onDown: () => metrics?.embeddedPostgresUp.set(0),
    onRestart: (outcome) => {
      metrics?.embeddedPostgresRestarts.inc({ outcome });
      if (outcome === 'restarted') metrics?.embeddedPostgresUp.set(1);
    },
  });
}
