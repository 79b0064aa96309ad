import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDb, createLogger, migrateLatest, processAlive, startEmbeddedPostgres, type EmbeddedPostgresHandle } from '@walletd/core';
import { freePort } from './walletdProcess';

declare global {
  // eslint-disable-next-line no-var
  var __WALLETD_PG__: EmbeddedPostgresHandle | undefined;
}

export const TEMPLATE_DB = 'walletd_template';

/** A run that crashed skips its teardown: stop and remove clusters whose jest process is gone. */
function sweepCrashedRuns(root: string): void {
  if (!existsSync(root)) return;
  for (const name of readdirSync(root)) {
    const m = /^run-(\d+)$/.exec(name);
    if (!m || processAlive(Number(m[1]))) continue;
    const pidFile = join(root, name, 'pg', 'postmaster.pid');
    const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').split('\n')[0]) : 0;
    if (pid > 0 && processAlive(pid)) process.kill(pid, 'SIGQUIT');
    rmSync(join(root, name), { recursive: true, force: true });
  }
}

/** One embedded PostgreSQL for the whole run (fsync off), with a migrated template database. */
export default async function globalSetup(): Promise<void> {
  const root = join(__dirname, '..', '..', '..', '.jest-pg');
  sweepCrashedRuns(root);
  // One cluster directory per run, so two runs at once (two terminals, CI shards) never share one.
  const dataDir = join(root, `run-${process.pid}`);
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
  // The tokens of in-process PKCS#11 tests: the module reads SOFTHSM2_CONF from the real
  // environment, which a test file cannot set (jest gives each file a copy of process.env).
  if (!process.env.SOFTHSM2_CONF) {
    mkdirSync(join(dataDir, 'softhsm', 'tokens'), { recursive: true });
    writeFileSync(
      join(dataDir, 'softhsm', 'softhsm2.conf'),
      `directories.tokendir = ${join(dataDir, 'softhsm', 'tokens')}\nobjectstore.backend = file\n`,
    );
    process.env.SOFTHSM2_CONF = join(dataDir, 'softhsm', 'softhsm2.conf');
  }
}
