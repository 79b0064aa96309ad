import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import type { Command } from 'commander';
import { BaseError, loadConfig } from '@walletd/core';
import { apiTarget, callApi } from './apiClient';

/** Headers walletd signs a delivery with; passed on to the local receiver unchanged. */
const PASSED = ['content-type', 'user-agent', 'x-service-signature', 'webhook-id', 'webhook-timestamp', 'webhook-signature'];

/**
 * `walletd listen --forward-to URL` (issue 47 §2), like `stripe listen`: a temporary webhook on the
 * running walletd that delivers to this command, which passes each delivery on to a local receiver
 * with walletd's own signature and prints one line per event. The signing secret is kept in the
 * data directory, so a receiver configured once keeps verifying across restarts of the command.
 */
export function registerListen(program: Command): void {
  program
    .command('listen')
    .description('forward the running walletd’s events to a local URL, signed as walletd signs them (a temporary webhook)')
    .requiredOption('--forward-to <url>', 'where to POST each delivery, e.g. http://localhost:3000/webhooks')
    .option('--events <list>', 'comma-separated event types, e.g. deposit.confirmed,withdrawal.confirmed (default: all)')
    .option('--api <url>', 'the running walletd’s API (default http://127.0.0.1:$PORT or 8080)')
    .option('--key <apiKey>', 'an API key with webhooks:manage (default WALLETD_API_KEY)')
    .action(async (o, cmd) => {
      const config = loadConfig({ file: cmd.optsWithGlobals().config });
      const target = apiTarget(o);
      const forwardTo = forwardUrl(String(o.forwardTo));
      const events = o.events
        ? String(o.events)
            .split(',')
            .map((e) => e.trim())
            .filter(Boolean)
        : ['*'];
      const secret = listenSecret(config.dataDir);
      const server = createServer((req, res) => {
        void pass(req, forwardTo).then(
          (line) => {
            process.stdout.write(`${line.text}\n`);
            res.writeHead(line.status).end();
          },
          () => res.writeHead(500).end(),
        );
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      const port = (server.address() as { port: number }).port;
      const hook = await callApi<{ id: number }>(target, 'POST', '/webhooks', {
        type: 'api',
        config: { url: `http://127.0.0.1:${port}/` },
        events,
        signingSecret: secret,
      }).catch((e: Error) => {
        server.close();
        if (/destination|loopback|private|allow-listed/i.test(e.message))
          throw new BaseError(
            'usage_invalid',
            `${e.message}; start walletd with WALLETD_WEBHOOK_ALLOW_CIDRS=127.0.0.0/8 to deliver to this machine`,
          );
        throw e;
      });
      const stop = async () => {
        await callApi(target, 'DELETE', `/webhooks/${hook.id}`).catch((e: Error) => process.stderr.write(`walletd: ${e.message}\n`));
        server.close();
        process.stdout.write(`Removed webhook ${hook.id}\n`);
        process.exit(0);
      };
      process.once('SIGINT', () => void stop());
      process.once('SIGTERM', () => void stop());
      // Said once the signals are taken: a Ctrl-C from here on removes the webhook.
      process.stdout.write(`Ready: webhook ${hook.id} forwards ${events.join(', ')} to ${forwardTo}\nSigning secret: ${secret}\n`);
    });
}

function forwardUrl(raw: string): string {
  try {
    const u = new URL(raw);
    if (u.protocol === 'http:' || u.protocol === 'https:') return u.toString();
  } catch {
    // Said below.
  }
  throw new BaseError('usage_invalid', `--forward-to ${raw} is not an http(s) URL`);
}

/** The command's signing secret: made once per data directory (mode 0600), the same on every run. */
function listenSecret(dataDir: string): string {
  const file = join(dataDir, 'listen-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = `whsec_listen_${randomBytes(24).toString('hex')}`;
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return secret;
}

/** Passes one delivery on; answers walletd with the receiver's status (502 when it is down, so walletd retries). */
async function pass(req: IncomingMessage, forwardTo: string): Promise<{ status: number; text: string }> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const body = Buffer.concat(chunks).toString('utf8');
  const headers: Record<string, string> = {};
  for (const h of PASSED) if (typeof req.headers[h] === 'string') headers[h] = req.headers[h] as string;
  const about = describe(body);
  try {
    const res = await fetch(forwardTo, { method: 'POST', headers, body });
    return { status: res.status, text: `${new Date().toISOString()}  ${about}  -> ${res.status}` };
  } catch (e) {
    return { status: 502, text: `${new Date().toISOString()}  ${about}  -> not delivered (${(e as Error).message})` };
  }
}

/** "deposit.confirmed 1.5 ETH" from an event body; the type alone when it has no amount. */
function describe(body: string): string {
  try {
    const e = JSON.parse(body) as { type?: string; data?: { amount?: string; asset?: { symbol?: string } } };
    const amount = e.data?.amount ? ` ${e.data.amount} ${e.data.asset?.symbol ?? ''}`.trimEnd() : '';
    return `${e.type ?? 'event'}${amount}`;
  } catch {
    return 'event (not JSON)';
  }
}
