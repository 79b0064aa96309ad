import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { createDb, createLogger, migrateLatest, startEmbeddedPostgres, type EmbeddedPostgresHandle } from '@walletd/core';

declare global {
  // eslint-disable-next-line no-var
  var __WALLETD_PG__: EmbeddedPostgresHandle | undefined;
}

export const TEMPLATE_DB = 'walletd_template';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/** One embedded PostgreSQL for the whole run (fsync off), with a migrated template database. */
export default async function globalSetup(): Promise<void> {
  // One cluster directory per run, so two runs at once (two terminals, CI shards) never share one.
  const dataDir = join(__dirname, '..', '..', '..', '.jest-pg', `run-${process.pid}`);
  rmSync(dataDir, { recursive: true, force: true });
  const logger = createLogger({ level: 'warn' });
  const handle = await startEmbeddedPostgres({
    dataDir,
    port: await freePort(),
    logger,
    database: TEMPLATE_DB,
    ephemeral: true,
  });
  const db = createDb({ url: handle.url });
  await migrateLatest(db);
  await db.destroy();
  globalThis.__WALLETD_PG__ = handle;
  process.env.WALLETD_TEST_PG_URL = handle.url;
  process.env.WALLETD_TEST_PG_DATA = dataDir;
}
