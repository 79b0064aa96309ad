import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '@walletd/core';

/** One mail the devnet's catch-all server received, as `walletd dev inbox` prints it. */
export interface InboxMail {
  receivedAt: string;
  from: string;
  to: string[];
  subject: string;
  text: string;
}

export const inboxDir = (dataDir: string) => join(dataDir, 'devnet-mail');

/**
 * The devnet's catch-all SMTP server (`npm start` with no `mail.smtp`): it accepts every mail on
 * 127.0.0.1, without authentication, and keeps each as a JSON file under `<dataDir>/devnet-mail`,
 * where `walletd dev inbox` reads them. Devnet only: never started when chains[] is configured.
 * The configured port (`devnet.mailPort`) when free, else any free one (two devnets on one machine).
 */
export async function startDevnetMailbox(dataDir: string, port: number, logger: Logger): Promise<{ port: number; stop(): Promise<void> }> {
  // Required here, not at the top: only a devnet starts the mailbox, and the two packages are
  // 5.8 MB of heap that every other walletd process (an API, a dispatcher) would carry for nothing.
  const { simpleParser } = require('mailparser') as typeof import('mailparser');
  const { SMTPServer } = require('smtp-server') as typeof import('smtp-server');
  const dir = inboxDir(dataDir);
  mkdirSync(dir, { recursive: true });
  let n = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((m) => {
          const mail: InboxMail = {
            receivedAt: new Date().toISOString(),
            from: m.from?.text ?? (session.envelope.mailFrom || undefined)?.address ?? '',
            to: session.envelope.rcptTo.map((r) => r.address),
            subject: m.subject ?? '',
            text: m.text ?? '',
          };
          n += 1;
          writeFileSync(join(dir, `${Date.now()}-${process.pid}-${n}.json`), `${JSON.stringify(mail, null, 2)}\n`, { mode: 0o600 });
          callback();
        })
        .catch((e: Error) => callback(e));
    },
  });
  // Errors after start (a client's broken connection) are the server's own, never a crash.
  server.on('error', (err) => logger.warn({ err }, 'devnet mail server error'));
  const listenOn = (p: number) =>
    new Promise<number>((resolve, reject) => {
      server.server.once('error', reject);
      server.listen(p, '127.0.0.1', () => {
        server.server.off('error', reject);
        const addr = server.server.address();
        resolve(typeof addr === 'object' && addr ? addr.port : p);
      });
    });
  const bound = await listenOn(port).catch(async (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EADDRINUSE') throw e;
    logger.warn({ port }, 'devnet mail: port in use, listening on a free one instead');
    return listenOn(0);
  });
  return { port: bound, stop: () => new Promise<void>((r) => server.close(() => r())) };
}

/** The devnet inbox, newest first. */
export function readInbox(dataDir: string): InboxMail[] {
  const dir = inboxDir(dataDir);
  let names: string[];
  try {
    names = readdirSync(dir).filter((f) => f.endsWith('.json'));
  } catch {
    return [];
  }
  const stamp = (f: string) => Number(f.split('-')[0]);
  return names
    .sort((a, b) => stamp(b) - stamp(a) || b.localeCompare(a))
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as InboxMail);
}
