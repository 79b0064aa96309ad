import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { MasterKey, createLogger, createMetrics, type Db } from '@walletd/core';
import { createConsoleApp, loadPlugins } from '@walletd/server';
import { type ConfigOverrides, testConfig } from './testApp';

/** The console app on a loopback port with a clock the test moves (no sleeping). Test-only. */
export async function startConsole(db: Db, over: ConfigOverrides = {}) {
  const clock = { now: Date.parse('2026-03-01T12:00:00Z') };
  const config = testConfig(over);
  const app = createConsoleApp(
    {
      config,
      logger: createLogger({ level: 'silent' }),
      db,
      masterKey: new MasterKey(randomBytes(32)),
      plugins: loadPlugins(),
      metrics: createMetrics(),
    },
    () => clock.now,
  );
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    clock,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** A browser's cookie jar, reduced to what the console sets. */
export class Browser {
  cookies = new Map<string, string>();
  constructor(readonly base: string) {}

  async call(method: string, path: string, opts: { body?: unknown; headers?: Record<string, string>; csrf?: boolean } = {}) {
    const headers: Record<string, string> = { ...opts.headers };
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (opts.csrf !== false && this.cookies.has('walletd_csrf')) headers['x-csrf-token'] ??= this.cookies.get('walletd_csrf') as string;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(this.base + path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const [k, v] = (pair as string).split('=');
      if (v) this.cookies.set(k as string, v);
      else this.cookies.delete(k as string);
    }
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null, setCookie: res.headers.getSetCookie() };
  }
}
