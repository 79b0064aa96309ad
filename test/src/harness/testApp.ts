import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { DEFAULT_CONFIG, MasterKey, createLogger, createMetrics, type Db, type PluginRegistry, type WalletdConfig } from '@walletd/core';
import { type Common, createApp, loadPlugins } from '@walletd/server';

export interface TestApp {
  url: string;
  masterKey: MasterKey;
  /** Every log line the app wrote, for assertions that no secret leaks. */
  logs: string[];
  close(): Promise<void>;
}

export type ConfigOverrides = { [K in keyof WalletdConfig]?: Partial<WalletdConfig[K]> | WalletdConfig[K] };

export function testConfig(over: ConfigOverrides = {}): WalletdConfig {
  const base = structuredClone(DEFAULT_CONFIG) as WalletdConfig;
  for (const [k, v] of Object.entries(over)) {
    const cur = (base as unknown as Record<string, unknown>)[k];
    (base as unknown as Record<string, unknown>)[k] =
      cur && typeof cur === 'object' && !Array.isArray(cur) ? { ...(cur as object), ...(v as object) } : v;
  }
  base.source = 'test';
  return base;
}

/** The real Express app on a loopback port, over the given database (the shipped plugins unless told). */
export async function startTestApp(
  db: Db,
  over: ConfigOverrides = {},
  masterKey = new MasterKey(randomBytes(32)),
  plugins: PluginRegistry = loadPlugins(),
  /** What `serve` adds beyond the one pool: the history reads' own pool (`reads`, `primaryReads`). */
  extra: Pick<Common, 'reads' | 'primaryReads'> = {},
): Promise<TestApp> {
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  const logger = createLogger({ level: 'debug', destination });
  const config = testConfig(over);
  const { app, limiters } = createApp({ config, logger, db, masterKey, plugins, metrics: createMetrics(), ...extra });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  // As `serve` (cli/serve.ts): idle keep-alive sockets stay 65 s. With Node's default 5 s, a client
  // reusing a socket the server closed meanwhile (its timers late on a loaded machine) reads
  // ECONNRESET: seen in openApiFuzz under load.
  server.keepAliveTimeout = 65_000;
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    masterKey,
    logs,
    close: async () => {
      for (const s of limiters.stores) s.shutdown();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export interface CallResult {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** fetch with the bearer key; returns the parsed JSON body (or null for an empty one). */
export async function call(
  base: string,
  method: string,
  path: string,
  options: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<CallResult> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(base + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = null;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}
