import {
  createDb,
  loadMasterKey,
  migrateLatest,
  startEmbeddedPostgres,
  type Db,
  type EmbeddedPostgresHandle,
  type Logger,
  type MasterKey,
  type WalletdConfig,
} from '@walletd/core';

export interface Runtime {
  db: Db;
  masterKey: MasterKey;
  embedded: EmbeddedPostgresHandle | null;
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
  const db = createDb({ url, poolMax: config.database.poolMax, preparedStatements: config.database.preparedStatements, logger });
  try {
    const applied = await migrateLatest(db);
    if (applied.length) logger.info({ migrations: applied }, 'database migrated');
    const source = loadMasterKey({ file: config.masterKeyFile, dataDir: config.dataDir });
    if (source.created) {
      logger.warn({ file: source.origin }, 'created a new master key; back it up: without it wallet secrets cannot be opened');
    }
    await checkMasterKey(db, source.key, source.origin);
    return {
      db,
      masterKey: source.key,
      embedded,
      close: async () => {
        await db.destroy();
        await embedded?.stop();
      },
    };
  } catch (e) {
    await db.destroy();
    await embedded?.stop();
    throw e;
  }
}

async function checkMasterKey(db: Db, key: MasterKey, origin: string): Promise<void> {
  const fingerprint = key.fingerprint();
  await db('settings').insert({ key: 'master_key_fingerprint', value: fingerprint }).onConflict('key').ignore();
  const row = await db('settings').where({ key: 'master_key_fingerprint' }).first('value');
  if (row?.value !== fingerprint) {
    throw new Error(`the master key from ${origin} is not the key this database was set up with; refusing to start`);
  }
}
