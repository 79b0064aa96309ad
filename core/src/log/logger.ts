import pino, { type Logger } from 'pino';
import { bufferedDestination } from './bufferedDestination';
import { isoTime } from './isoTime';
import { messageOnce } from './messageOnce';

export type { Logger };

/**
 * Paths never written to logs. Secrets should not reach a log call at all; this is the net
 * under that rule (request headers, bodies that carry secrets, config with credentials).
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'apiKey',
  'secret',
  'signingSecret',
  'password',
  'masterKey',
  'mnemonic',
  '*.apiKey',
  '*.secret',
  '*.signingSecret',
  '*.password',
  '*.mnemonic',
  'config.botToken',
  '*.config.botToken',
  'database.url',
  'database.replicaUrl',
];

export interface LoggerOptions {
  level?: string;
  /** Fixed scope fields (role, chain, network, ...). */
  base?: Record<string, unknown>;
  destination?: pino.DestinationStream;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: { service: 'walletd', ...options.base },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: isoTime,
      serializers: {
        err: (e: unknown) => {
          const out = pino.stdSerializers.err(e as Error);
          if (e instanceof Error) out.message = messageOnce(e);
          return out;
        },
      },
    },
    options.destination ?? bufferedDestination(),
  );
}
