import type { Command } from 'commander';
import ProgressBar from 'progress';
import { BaseError, initTokenMasterKey, loadConfig, tokenConfig, tokenOrigin } from '@walletd/core';
import { rotateMasterKey } from '../keys/masterKey/rotateMasterKey';
import { verifyMasterKey } from '../keys/masterKey/verifyMasterKey';
import { type GlobalOptions, withRuntime } from './context';
import { intArg, printJson } from './output';

/** `walletd keys …`: the master key in a PKCS#11 token, its rotation and the check before the old key goes (docs/operate/keys-and-hsms.md). */
export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('the master key: create it in a PKCS#11 token, rotate to a new key, verify');
  keys
    .command('init-token')
    .description('create the AES-256 master key that masterKey.pkcs11 names inside its token (never extractable)')
    .action((_o, cmd) => {
      const config = loadConfig({ file: (cmd.optsWithGlobals() as GlobalOptions).config });
      const settings = config.masterKey.pkcs11;
      if (!settings)
        throw new BaseError('usage_invalid', 'masterKey.pkcs11 is not configured: say which module, token, PIN and key label to use');
      initTokenMasterKey(tokenConfig(settings, process.env, 'masterKey.pkcs11'));
      process.stdout.write(`created ${tokenOrigin(settings)}: an AES-256 key that cannot leave the token\n`);
    });
  keys
    .command('rotate')
    .description('re-wrap every sealed secret under the current master key (masterKey.previous opens the old ones); resumable')
    .option('--batch-size <n>', 'envelopes re-wrapped per transaction', intArg('--batch-size'), 100)
    .action(async (o, cmd) =>
      withRuntime(cmd.optsWithGlobals() as GlobalOptions, async ({ db, masterKey }) => {
        const bars = new Map<string, ProgressBar>();
        const result = await rotateMasterKey(db, masterKey, {
          batchSize: o.batchSize,
          onProgress: ({ table, done, total }) => {
            if (!process.stderr.isTTY) {
              process.stderr.write(`${table}: ${done}/${total} re-wrapped\n`);
              return;
            }
            if (total === 0) return;
            let bar = bars.get(table);
            if (!bar) {
              bar = new ProgressBar(`${table.padEnd(18)} [:bar] :current/:total :etas`, { total, width: 30, stream: process.stderr });
              bars.set(table, bar);
            }
            bar.tick(done - bar.curr);
          },
        });
        printJson(result);
        const count = Object.values(result.rewrapped).reduce((a, b) => a + b, 0);
        process.stderr.write(`re-wrapped ${count} envelopes; ${result.current} are under the current key. Next: walletd keys verify\n`);
      }),
    );
  keys
    .command('verify')
    .description('open every sealed secret with the current key alone; when all open, the previous key may be removed and destroyed')
    .action(async (_o, cmd) =>
      withRuntime(cmd.optsWithGlobals() as GlobalOptions, async ({ db, masterKey }) => {
        const result = await verifyMasterKey(db, masterKey);
        printJson({ opened: result.opened, failed: result.failed.length, firstFailed: result.failed.slice(0, 20) });
        if (result.failed.length > 0) {
          process.stderr.write(
            `${result.failed.length} envelopes do not open with the current key alone: run walletd keys rotate, and keep the previous key\n`,
          );
          process.exitCode = 1;
          return;
        }
        const note = masterKey.previous
          ? ' remove masterKey.previous from the config, restart, then the previous key may be destroyed'
          : '';
        process.stderr.write(`all ${result.opened} envelopes open with the current key; the database is now keyed to it.${note}\n`);
      }),
    );
}
