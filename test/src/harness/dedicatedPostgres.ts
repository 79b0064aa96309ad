import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './walletdProcess';

export interface DedicatedPostgres {
  url: string;
  /** Stops the cluster (fast shutdown: open connections are cut) and removes its files. */
  stop(): Promise<void>;
}

/**
 * A PostgreSQL of a test's own, for tests that stop the database under a running app: the
 * run's shared cluster serves every other suite. startEmbeddedPostgres loads its binaries with a
 * dynamic import, which jest's module sandbox refuses, so a small node process drives it and
 * stops it when told to on stdin.
 */
export async function startDedicatedPostgres(): Promise<DedicatedPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'walletd-pg-'));
  const port = await freePort();
  const script = `
    const core = require(${JSON.stringify(require.resolve('@walletd/core'))});
    (async () => {
      const pg = await core.startEmbeddedPostgres({ dataDir: ${JSON.stringify(dir)}, port: ${port},
        logger: core.createLogger({ level: 'silent' }), ephemeral: true });
      process.stdout.write(JSON.stringify({ url: pg.url }) + '\\n');
      process.stdin.once('data', async () => { await pg.stop({ force: true }); process.exit(0); });
    })().catch((e) => { process.stderr.write(String(e && e.stack || e)); process.exit(1); });`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (c) => {
    err += c;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (c) => {
      out += c;
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve((JSON.parse(line) as { url: string }).url);
    });
    void exited.then((code) => reject(new Error(`embedded PostgreSQL helper exited (${code}): ${err}`)));
  });
  let stopped: Promise<void> | null = null;
  return {
    url,
    stop: () => {
      stopped ??= (async () => {
        child.stdin.write('stop\n');
        const code = await exited;
        rmSync(dir, { recursive: true, force: true });
        if (code !== 0) throw new Error(`stopping the embedded PostgreSQL failed (${code}): ${err}`);
      })();
      return stopped;
    },
  };
}
