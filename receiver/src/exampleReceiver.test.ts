import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { sign, type WalletdEvent } from './index';

// examples/receiver.js, run as a user would: `require('@walletd/receiver')` resolves to this
// package's dist (built by `tsc -b`), PORT=0 picks a free port, which it prints.
const EXAMPLE = join(__dirname, '..', 'examples', 'receiver.js');
const SECRET = 'whsec_example-receiver-test-secret';

let child: ChildProcess;
let output = '';
const listeners = new Set<() => void>();
let url: string;

/** Resolves when the example's stdout+stderr match; rejects if it exits first. */
function waitFor(pattern: RegExp): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const m = output.match(pattern);
      if (m) done(() => resolve(m));
      else if (child.exitCode !== null)
        done(() => reject(new Error(`receiver.js exited (${child.exitCode}) before ${pattern}:\n${output}`)));
    };
    const done = (settle: () => void) => {
      listeners.delete(check);
      settle();
    };
    listeners.add(check);
    check();
  });
}

function event(overrides: Partial<WalletdEvent> = {}): WalletdEvent {
  return {
    id: randomUUID(),
    type: 'withdrawal.confirmed',
    chain: 'bitcoin',
    network: 'testnet',
    companyId: 1,
    createdAt: '2026-01-02T03:04:05.678Z',
    data: {
      chain: 'bitcoin',
      network: 'testnet',
      withdrawalId: 42,
      txHash: 'ab'.repeat(32),
      status: 'confirmed',
      confirmations: 3,
      amount: '0.00120000',
      asset: { key: 'bitcoin:testnet:btc', symbol: 'BTC', decimals: 8, contractAddress: null },
      fromAddress: 'tb1qsource',
      sourceAddresses: ['tb1qsource'],
      toAddress: 'tb1qdestination',
    },
    ...overrides,
  } as WalletdEvent;
}

const post = (body: string, signature: string | undefined) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(signature === undefined ? {} : { 'x-service-signature': signature }) },
    body,
  });

const count = (text: string) => output.split(text).length - 1;

beforeAll(async () => {
  child = spawn(process.execPath, [EXAMPLE], {
    env: { ...process.env, WALLETD_WEBHOOK_SECRET: SECRET, PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    for (const l of listeners) l();
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  child.on('exit', () => {
    for (const l of listeners) l();
  });
  const [, port] = await waitFor(/listening on port (\d+)/);
  url = `http://127.0.0.1:${port}/webhooks/walletd`;
});

afterAll(async () => {
  if (child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill();
    await exited;
  }
});

describe('examples/receiver.js', () => {
  it('accepts a signed event once, answers 200 to its redelivery, and refuses a bad signature', async () => {
    const body = JSON.stringify(event());
    const { id } = JSON.parse(body) as WalletdEvent;

    expect((await post(body, sign(SECRET, body))).status).toBe(200);
    await waitFor(new RegExp(`processed ${id} withdrawal.confirmed`));

    expect((await post(body, sign(SECRET, body))).status).toBe(200); // a retry of the same event
    await waitFor(new RegExp(`duplicate ${id} ignored`));

    // Bad signatures: another secret, a body changed after signing, none at all.
    const forged = JSON.stringify(event());
    expect((await post(forged, sign('whsec_someone-else', forged))).status).toBe(401);
    expect((await post(body.replace('0.00120000', '9.00120000'), sign(SECRET, body))).status).toBe(401);
    expect((await post(forged, undefined)).status).toBe(401);

    // A later event is processed after anything queued before it: by then a second run of the
    // first event would have shown.
    const next = JSON.stringify(event({ type: 'withdrawal.broadcast' }));
    expect((await post(next, sign(SECRET, next))).status).toBe(200);
    await waitFor(new RegExp(`processed ${JSON.parse(next).id} withdrawal.broadcast`));

    expect(count(`processed ${id} `)).toBe(1);
    expect(count(JSON.parse(forged).id)).toBe(0);
    expect(count('processed ')).toBe(2);
  });

  it('answers 400 to a signed body that is not an event', async () => {
    const body = JSON.stringify({ hello: 'world' });
    const res = await post(body, sign(SECRET, body));
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/"id"/);
  });
});
