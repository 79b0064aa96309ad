import './compileCache';
import '../platform/tracing/instrumentEarly';
import { Command, CommanderError } from 'commander';
import { BaseError, ConfigError, createLogger, loadConfig } from '@walletd/core';
import { API_VERSION } from '../app';
import { openRuntime } from '../platform/runtime';
import { registerAdmin } from './adminCommands';
import { registerArchive } from './archiveCommand';
import { registerDev } from './devCommands';
import { registerKeys } from './keysCommands';
import { registerListen } from './devLoop/listenCommand';
import { registerTrigger } from './devLoop/triggerCommand';
import { registerSecret } from './secretCommands';
import { DEFAULT_ROLES, ROLES, serve } from './serve';

const program = new Command();
program
  .name('walletd')
  .description('Self-hostable custody wallets with signed deposit and withdrawal webhooks')
  .version(API_VERSION)
  .option('-c, --config <file>', 'JSON config file (default: $WALLETD_CONFIG, else built-in defaults)')
  .showHelpAfterError()
  // Every command reads the config: list --config in each command's --help, not only the top level.
  .configureHelp({ showGlobalOptions: true })
  .exitOverride();

program
  .command('serve')
  .description("run the service: the API, the webhook dispatcher, the chain indexer and the members' console")
  .option('--roles <list>', `comma-separated roles to run (${ROLES.join(', ')}; all of them unless told)`, DEFAULT_ROLES.join(','))
  .action(async (o, cmd) => serve({ ...cmd.optsWithGlobals(), roles: o.roles }));

program
  .command('migrate')
  .description('apply database migrations and exit')
  .action(async (_o, cmd) => {
    const config = loadConfig({ file: cmd.optsWithGlobals().config });
    const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'info', base: { role: 'migrate' } });
    const rt = await openRuntime(config, logger, { createCluster: true });
    await rt.close();
    process.stdout.write('database is at the latest migration\n');
  });

registerAdmin(program);
registerArchive(program);
registerSecret(program);
registerKeys(program);
registerListen(program);
registerTrigger(program);
registerDev(program);

program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof CommanderError) process.exit(err.exitCode);
  const known = err instanceof BaseError || err instanceof ConfigError || err instanceof Error;
  process.stderr.write(`walletd: ${known ? (err as Error).message : String(err)}\n`);
  if (process.env.WALLETD_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
  process.exit(1);
});
