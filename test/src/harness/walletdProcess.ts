import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processAlive } from '@walletd/core';

export const WALLETD_MAIN = join(__dirname, '..', '..', '..', 'server', 'dist', 'cli', 'main.js');

export interface WalletdProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when stdout+stderr match, rejects if the process exits first or time runs out. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
}

export function spawnWalletd(args: string[], env: Record<string, string | undefined> = {}): WalletdProcess {
  const child = spawn(process.execPath, [WALLETD_MAIN, ...args], {
    // The console is a default role: on an ephemeral port unless the test names one, so that
    // processes started side by side (and the user's own 8081) never collide.
    env: { ...process.env, LOG_LEVEL: 'info', WALLETD_CONSOLE_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  child.stdout?.on('data', (c) => {
    out += c;
    for (const l of listeners) l();
  });
  child.stderr?.on('data', (c) => {
    err += c;
    for (const l of listeners) l();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor: (pattern, timeoutMs = 60_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const m = (out + err).match(pattern);
          if (m) {
            cleanup();
            resolve(m);
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out waiting for ${pattern}; output:\n${out}\n${err}`));
        }, timeoutMs);
        const onExit = () => {
          cleanup();
          reject(new Error(`walletd exited before ${pattern}; output:\n${out}\n${err}`));
        };
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
          child.off('close', onExit);
        };
        listeners.add(check);
        // 'close', not 'exit': a child's last words (the port-clash line it writes just before
        // exiting) can still be in the pipe when 'exit' fires; 'close' comes after both pipes end.
        child.once('close', onExit);
        check();
      }),
  };
}

/** Runs a walletd command to completion (admin commands), returning its parsed JSON stdout. */
export function runWalletd(
  args: string[],
  env: Record<string, string | undefined> = {},
  input?: string,
): { status: number | null; stdout: string; stderr: string; json: any } {
  const r = spawnSync(process.execPath, [WALLETD_MAIN, ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    input,
    timeout: 60_000,
  });
  let json: unknown = null;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    /* not JSON */
  }
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, json };
}

/**
 * The same, without blocking the event loop: for tests that also serve HTTP in this process (a
 * blocked loop lets keep-alive timers fire late and reset connections the client is reusing).
 */
export async function runWalletdAsync(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<{ status: number | null; stdout: string; stderr: string; json: any }> {
  const child = spawn(process.execPath, [WALLETD_MAIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c) => {
    stdout += c;
  });
  child.stderr?.on('data', (c) => {
    stderr += c;
  });
  const status = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  let json: unknown = null;
  try {
    json = JSON.parse(stdout);
  } catch {
    /* not JSON */
  }
  return { status, stdout, stderr, json };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/** Alive and not a zombie (an orphan nobody reaped still answers kill(pid, 0)). */
export const pidAlive = processAlive;

/**
 * `walletd serve` on a config file written from `config`, against `databaseUrl`, on a free
 * loopback port with a fresh master key, once its API listens: what the serve-to-receiver tests
 * start before anything else. `env` adds to the process's environment (NODE_PATH for a plugin
 * installed elsewhere).
 */
export async function serveWithConfig(
  databaseUrl: string,
  config: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<{ proc: WalletdProcess; base: string }> {
  const file = join(mkdtempSync(join(tmpdir(), 'walletd-serve-')), 'walletd.json');
  writeFileSync(file, JSON.stringify(config));
  const port = await freePort();
  const proc = spawnWalletd(['serve', '--config', file], {
    DATABASE_URL: databaseUrl,
    WALLETD_MASTER_KEY: randomBytes(32).toString('hex'),
    PORT: String(port),
    HOST: '127.0.0.1',
    ...env,
  });
  await proc.waitFor(/API listening/);
  return { proc, base: `http://127.0.0.1:${port}` };
}
