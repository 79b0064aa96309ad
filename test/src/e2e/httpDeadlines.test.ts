import { connect, createServer, type Server } from 'node:net';
import { createTestDatabase, freePort, seedCompany, serveWithConfig, type TestDatabase, type WalletdProcess } from '@walletd/test-harness';

/**
 * Sends `head` (and `body`) on a raw connection and waits for the server to close it, up to the
 * client's own 10 s: what the server wrote before closing, or 'held' when it did not close.
 */
function sendAndAwaitClose(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let got = '';
    const guard = setTimeout(() => {
      socket.destroy();
      resolve('held');
    }, 10_000);
    socket.on('data', (c) => {
      got += c;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(guard);
      resolve(got);
    });
    socket.write(bytes);
  });
}

describe('the API and console servers: request deadlines and the port-clash message', () => {
  let t: TestDatabase;
  let proc: WalletdProcess;
  let apiPort: number;
  let consolePort: number;
  let key: string;

  beforeAll(async () => {
    t = await createTestDatabase();
    key = (await seedCompany(t.db)).rootKey;
    consolePort = await freePort();
    let base: string;
    // Short deadlines so that the test takes seconds; the defaults are in docs/operate/faults.md, "Timeouts and the reverse proxy".
    ({ proc, base } = await serveWithConfig(
      t.url,
      { server: { headersTimeoutMs: 1000, requestTimeoutMs: 1500 }, devnet: { enabled: false } },
      { WALLETD_BOOTSTRAP: '0', WALLETD_CONSOLE_PORT: String(consolePort) },
    ));
    await proc.waitFor(/console listening/);
    apiPort = Number(new URL(base).port);
  });
  afterAll(async () => {
    if (proc && proc.child.exitCode === null) {
      proc.child.kill('SIGTERM');
      await proc.exited;
    }
    await t?.drop();
  });

  it('closes a request whose body is shorter than its Content-Length (API, authenticated, so the body is awaited)', async () => {
    const head = `POST /v1/wallets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n`;
    const got = await sendAndAwaitClose(apiPort, `${head}{"chain":"ethereum"`);
    expect(got).not.toBe('held');
  });

  it('answers 408 and closes a request whose headers never end (API and console)', async () => {
    for (const port of [apiPort, consolePort]) {
      const got = await sendAndAwaitClose(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n');
      expect(got).toMatch(/^HTTP\/1\.1 408 /);
    }
  });

  it('closes a console request whose body is shorter than its Content-Length', async () => {
    const head = 'POST /console/api/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n';
    const got = await sendAndAwaitClose(consolePort, `${head}{"email":`);
    expect(got).not.toBe('held');
  });

  it('a console port in use names WALLETD_CONSOLE_PORT / console.port', async () => {
    const holder: Server = createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', () => r()));
    const taken = (holder.address() as { port: number }).port;
    // A database of its own: serveWithConfig gives each process a new master key.
    const other = await createTestDatabase();
    try {
      const second = await serveWithConfig(
        other.url,
        { devnet: { enabled: false }, console: { host: '127.0.0.1' } },
        {
          WALLETD_BOOTSTRAP: '0',
          WALLETD_CONSOLE_PORT: String(taken),
        },
      ).catch((e: Error) => e);
      expect(second).toBeInstanceOf(Error);
      expect((second as Error).message).toContain(`port ${taken} is in use (on 127.0.0.1)`);
      expect((second as Error).message).toContain('set WALLETD_CONSOLE_PORT or console.port');
      expect((second as Error).message).not.toContain('set PORT or server.port');
    } finally {
      await new Promise((r) => holder.close(r));
      await other.drop();
    }
  });
});
