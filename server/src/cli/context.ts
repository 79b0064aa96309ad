import { createLogger, loadConfig, type Logger, type WalletdConfig } from '@walletd/core';
import { openRuntime, type Runtime } from '../runtime';

export interface GlobalOptions {
  config?: string;
}

/** Config + logger + runtime for one command; always closed, so an embedded database is stopped. */
export async function withRuntime<T>(
  opts: GlobalOptions,
  fn: (rt: Runtime, config: WalletdConfig, logger: Logger) => Promise<T>,
): Promise<T> {
  const config = loadConfig({ file: opts.config });
  // Logs to stderr at warn: stdout carries the command's JSON.
  const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'warn', base: { role: 'admin' } });
  const rt = await openRuntime(config, logger);
  try {
    return await fn(rt, config, logger);
  } finally {
    await rt.close();
    logger.flush();
  }
}
