import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '@walletd/test-harness';

/**
 * A Debian PostgreSQL primary and a streaming replica cloned from it with `pg_basebackup -R`
 * (a physical slot, WAL streamed during the copy): the pair an operator runs, from the distribution's
 * server binaries (`apt-get install postgresql`), not the embedded ones. Loopback only, `trust`
 * authentication (a test's throwaway cluster). As root both run as `postgres` (PostgreSQL refuses root).
 */
export interface PrimaryAndReplica {
  primaryUrl: string;
  replicaUrl: string;
  /** `pg_wal_replay_pause()` / `_resume()` on the replica: it keeps receiving WAL but applies none. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  stop(): Promise<void>;
}

/** The newest Debian server's bin folder, or null when none is installed. */
export function debianPostgresBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'pg_basebackup')) && existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(a) - Number(b));
  const v = versions.at(-1);
  return v ? join(root, v, 'bin') : null;
}

function run(file: string, args: string[]): Promise<string> {
  // As root, every server binary runs as `postgres` through runuser.
  const [cmd, argv] = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
  return new Promise((resolve, reject) =>
    execFile(cmd, argv, { timeout: 120_000, env: { ...process.env, LC_ALL: 'C' } }, (err, out, errOut) =>
      err ? reject(new Error(`${file} ${args.join(' ')}: ${err.message}\n${out}${errOut}`)) : resolve(out.trim()),
    ),
  );
}

async function query(url: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

export async function startPrimaryAndReplica(bin: string): Promise<PrimaryAndReplica> {
  const work = mkdtempSync(join(tmpdir(), 'walletd-drill-pg-'));
  chmodSync(work, 0o711);
  const [primaryDir, replicaDir, sock] = ['primary', 'replica', 'sock'].map((d) => join(work, d)) as [string, string, string];
  for (const d of [primaryDir, sock]) {
    mkdirSync(d, { mode: 0o700 });
    if (process.getuid?.() === 0)
      chownSync(d, Number(execFileSync('id', ['-u', 'postgres'])), Number(execFileSync('id', ['-g', 'postgres'])));
  }
  // The replica's folder is made by pg_basebackup (as postgres): the parent must be writable to it.
  chmodSync(work, 0o777);
  const [pPort, rPort] = [await freePort(), await freePort()];
  const common = `-k ${sock} -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off -c hot_standby_feedback=on`;
  let replicaStarted = false;
  const stop = async () => {
    if (replicaStarted) await run(join(bin, 'pg_ctl'), ['stop', '-D', replicaDir, '-m', 'immediate', '-w']).catch(() => undefined);
    await run(join(bin, 'pg_ctl'), ['stop', '-D', primaryDir, '-m', 'immediate', '-w']).catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
  };
  try {
    await run(join(bin, 'initdb'), ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '--no-sync']);
    await run(join(bin, 'pg_ctl'), [
      'start',
      '-D',
      primaryDir,
      '-w',
      '-t',
      '60',
      '-l',
      join(primaryDir, 'server.log'),
      '-o',
      `-p ${pPort} ${common} -c wal_level=replica -c max_wal_senders=4 -c max_replication_slots=4`,
    ]);
    const base = `postgres://postgres@127.0.0.1:${pPort}`;
    await query(`${base}/postgres`, 'create database walletd');
    // initdb's pg_hba trusts replication connections from loopback: the clone streams from the primary.
    await run(join(bin, 'pg_basebackup'), [
      '-h',
      '127.0.0.1',
      '-p',
      String(pPort),
      '-U',
      'postgres',
      '-D',
      replicaDir,
      '-R',
      '-X',
      'stream',
      '-C',
      '-S',
      'walletd_drill_replica',
      // An immediate checkpoint: the default (spread) one takes minutes on a quiet new cluster.
      '--checkpoint=fast',
      '--no-sync',
    ]);
    await run(join(bin, 'pg_ctl'), [
      'start',
      '-D',
      replicaDir,
      '-w',
      '-t',
      '60',
      '-l',
      join(replicaDir, 'server.log'),
      '-o',
      `-p ${rPort} ${common}`,
    ]);
    replicaStarted = true;
  } catch (e) {
    await stop();
    throw e;
  }
  const replicaUrl = `postgres://postgres@127.0.0.1:${rPort}/walletd`;
  return {
    primaryUrl: `postgres://postgres@127.0.0.1:${pPort}/walletd`,
    replicaUrl,
    pauseReplay: () => query(replicaUrl, 'select pg_wal_replay_pause()'),
    resumeReplay: () => query(replicaUrl, 'select pg_wal_replay_resume()'),
    stop,
  };
}
