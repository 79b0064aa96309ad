import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { MasterKey, createLogger, createMetrics, type Db } from '@walletd/core';
import { Secret, TOTP } from 'otpauth';
import { createConsoleApp, inviteMember, loadPlugins } from '@walletd/server';
import { type ConfigOverrides, testConfig } from './testApp';

/** The console app on a loopback port with a clock the test moves (no sleeping). Test-only. */
export async function startConsole(
  db: Db,
  over: ConfigOverrides = {},
  masterKey = new MasterKey(randomBytes(32)),
  /** Where the console logs; by default every line at debug level into `logs`. */
  logger?: ReturnType<typeof createLogger>,
) {
  const clock = { now: Date.parse('2026-03-01T12:00:00Z') };
  const config = testConfig(over);
  // Every line the console writes, at every level, for assertions that no secret reaches a log.
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  const app = createConsoleApp(
    {
      config,
      logger: logger ?? createLogger({ level: 'debug', destination }),
      db,
      masterKey,
      plugins: loadPlugins(),
      metrics: createMetrics(),
    },
    () => clock.now,
  );
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  // As `serve` (cli/serve.ts): idle keep-alive sockets stay 65 s. With Node's default 5 s, a client
  // reusing a socket the server closed meanwhile (its timers late on a loaded machine) reads
  // ECONNRESET: seen in openApiFuzz under load.
  server.keepAliveTimeout = 65_000;
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  // Passkeys are bound to a host name (WebAuthn takes no IP address): the console's public URL is
  // localhost on the port it got, unless the test names one.
  config.console.publicUrl ??= `http://localhost:${port}`;
  return {
    url,
    /** Where a browser opens the console for passkeys: `console.publicUrl`. */
    publicUrl: config.console.publicUrl,
    clock,
    logs,
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

export type ConsoleServer = Awaited<ReturnType<typeof startConsole>>;

/**
 * A member as a person becomes one: invited, sets a password through the link, enrolls TOTP (the
 * test computes codes from the shown secret), signs out and signs in again with a code. `code()`
 * moves the console's clock to the next 30 s step first, since a step is accepted only once.
 */
export async function onboardMember(con: ConsoleServer, db: Db, input: { companyId: number; email: string; role: string }) {
  const password = 'correct horse battery staple';
  const inv = await inviteMember(db, input, con.clock.now, 86_400_000);
  const b = new Browser(con.url);
  const expectStatus = (what: string, r: { status: number; body: unknown }, status: number) => {
    if (r.status !== status) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
  };
  expectStatus('accept link', await b.call('POST', `/console/api/links/${inv.token}`, { body: { password } }), 200);
  expectStatus('first sign-in', await b.call('POST', '/console/api/session', { body: { email: input.email, password } }), 201);
  const enroll = await b.call('POST', '/console/api/mfa/enroll');
  const secret = enroll.body.secret as string;
  const code = () => {
    con.clock.now += 30_000;
    return TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: con.clock.now });
  };
  expectStatus('mfa verify', await b.call('POST', '/console/api/mfa/verify', { body: { code: code() } }), 200);
  expectStatus('sign out', await b.call('DELETE', '/console/api/session'), 204);
  const signIn = await b.call('POST', '/console/api/session', { body: { email: input.email, password, code: code() } });
  expectStatus('sign-in with code', signIn, 201);
  return { b, memberId: inv.memberId as number, email: input.email, password, secret, code };
}
