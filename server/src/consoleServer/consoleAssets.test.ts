import { mkdtempSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { createLogger } from '@walletd/core';
import { CONSOLE_CSP } from '@walletd/server';
import { createTestDatabase, startConsole, type TestDatabase } from '@walletd/test-harness';
import { consoleAssets } from './consoleAssets';

let t: TestDatabase;
let con: Awaited<ReturnType<typeof startConsole>>;

beforeAll(async () => {
  t = await createTestDatabase();
  con = await startConsole(t.db);
});
afterAll(async () => {
  await con.close();
  await t.drop();
});

describe("the console's pages", () => {
  it('serve index.html for client routes, the hashed files under assets/, and a 404 (not the page) for a missing asset', async () => {
    const page = await fetch(`${con.url}/console/links/some-token`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await page.text();
    const script = /<script type="module" crossorigin src="(\/console\/assets\/[^"]+\.js)"><\/script>/.exec(html);
    expect(script).not.toBeNull();
    // Nothing inline: every script and style is a file the CSP's 'self' allows.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)|<style|\sstyle=/);

    const js = await fetch(con.url + script![1]);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/javascript/);
    expect(js.headers.get('cache-control')).toContain('immutable');

    const missing = await fetch(`${con.url}/console/assets/nope.js`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).not.toMatch(/html/);

    const bare = await fetch(`${con.url}/console`, { redirect: 'manual' });
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe('/console/');

    // The API's own 404 stays JSON: the page fallback never answers under /console/api.
    const api = await fetch(`${con.url}/console/api/nope`);
    expect(api.status).toBe(404);
    expect(((await api.json()) as { code: string }).code).toBe('not_found');
  });

  it('answer 503 with what to run when the pages were never built', async () => {
    const app = express().use(
      '/console',
      consoleAssets(createLogger({ level: 'silent' }), mkdtempSync(join(tmpdir(), 'walletd-nopages-'))),
    );
    const server: Server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/console/`);
      expect(res.status).toBe(503);
      expect(await res.text()).toContain('npm run build');
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
