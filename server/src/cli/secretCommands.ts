import { readFileSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { generateSealingKeyPair, openSealed } from '@walletd/core';
import { walletSecretContext } from '../services/wallets';
import { intArg } from './output';

/** Offline tools for the company's encryption key; they never touch the database. */
export function registerSecret(program: Command): void {
  const secret = program.command('secret').description("the company's encryption key and sealed wallet secrets (offline)");
  secret
    .command('keygen')
    .description('create an X25519 key pair: register the public key, keep the private key offline')
    .requiredOption('--private-key <file>', 'where to write the private key (PEM, mode 0600)')
    .requiredOption('--public-key <file>', 'where to write the public key (PEM)')
    .action((o) => {
      const pair = generateSealingKeyPair();
      writeFileSync(o.privateKey, pair.privateKeyPem, { mode: 0o600, flag: 'wx' });
      writeFileSync(o.publicKey, pair.publicKeyPem, { flag: 'wx' });
      process.stdout.write(`wrote ${o.privateKey} (keep it secret) and ${o.publicKey} (register it)\n`);
    });
  secret
    .command('open')
    .description('open a sealed secret from GET /v1/wallets/:id/secret with the private key')
    .requiredOption('--private-key <file>', 'the private key (PEM)')
    .option('--wallet <id>', 'wallet id (read from the JSON response when omitted)', intArg('--wallet'))
    .option('--in <file>', 'the JSON response or the sealed string (default: standard input)')
    .action((o) => {
      const input = readFileSync(o.in ?? 0, 'utf8').trim();
      let sealed = input;
      let walletId: number | undefined = o.wallet;
      if (input.startsWith('{')) {
        const body = JSON.parse(input) as { walletId?: number; sealedSecret?: string };
        sealed = body.sealedSecret ?? '';
        walletId ??= body.walletId;
      }
      if (!walletId) throw new Error('the wallet id is needed: pass --wallet or the whole JSON response');
      const plain = openSealed(readFileSync(o.privateKey, 'utf8'), sealed, walletSecretContext(walletId));
      process.stdout.write(`${plain.toString('utf8')}\n`);
    });
}
