import type { Command } from 'commander';
import { BaseError, generateSealingKeyPair, isPublicError, openSealed, parseSealingPrivateKey } from '@walletd/core';
import { walletSecretContext } from '../wallets/wallets';
import { aboutFile, readTextFile, writeNewFiles } from './fileWords';
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
      writeNewFiles([
        { path: o.privateKey, content: pair.privateKeyPem, mode: 0o600, what: 'the private key file' },
        { path: o.publicKey, content: pair.publicKeyPem, what: 'the public key file' },
      ]);
      process.stdout.write(`wrote ${o.privateKey} (keep it secret) and ${o.publicKey} (register it)\n`);
    });
  secret
    .command('open')
    .description('open a sealed secret from GET /v1/wallets/:id/secret with the private key')
    .requiredOption('--private-key <file>', 'the private key (PEM)')
    .option('--wallet <id>', 'wallet id (read from the JSON response when omitted)', intArg('--wallet'))
    .option('--in <file>', 'the JSON response or the sealed string (default: standard input)')
    .action((o) => {
      const input = readTextFile(o.in ?? 0, 'the sealed secret').trim();
      let sealed = input;
      let walletId: number | undefined = o.wallet;
      if (input.startsWith('{')) {
        const body = aboutFile(o.in ?? 'from standard input', 'the sealed secret', () => parseResponse(input));
        sealed = body.sealedSecret ?? '';
        walletId ??= body.walletId;
      }
      if (!walletId) throw new BaseError('usage_invalid', 'the wallet id is needed: pass --wallet or the whole JSON response');
      const pem = readTextFile(o.privateKey, 'the private key');
      aboutFile(o.privateKey, 'the private key', () => parseSealingPrivateKey(pem));
      let plain: Buffer;
      try {
        plain = openSealed(pem, sealed, walletSecretContext(walletId));
      } catch (e) {
        throw isPublicError(e) ? new BaseError(e.code, `${e.message} (private key ${o.privateKey})`) : e;
      }
      process.stdout.write(`${plain.toString('utf8')}\n`);
    });
}

function parseResponse(input: string): { walletId?: number; sealedSecret?: string } {
  try {
    return JSON.parse(input) as { walletId?: number; sealedSecret?: string };
  } catch {
    throw new BaseError('bad_request', 'is not the JSON of GET /v1/wallets/:id/secret (nor a wdseal1. string)');
  }
}
