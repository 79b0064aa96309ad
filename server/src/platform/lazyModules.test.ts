import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Packages only a few code paths need are required on first use, not when walletd starts: the
 * password-strength dictionaries (12.7 MB of heap; a member sets a password rarely) and the devnet
 * mailbox's SMTP server and mail parser (5.8 MB; a devnet only), the passkey ceremonies'
 * `@simplewebauthn/server` (4.6 MB), the SMTP client (nodemailer, 2.8 MB: made on the first mail)
 * and the QR encoder of TOTP enrolment (1 MB). An API or dispatcher process that carried them spent
 * longer in every full garbage collection (its heap 50.7 -> 32.0 MB without the first two). The AWS
 * SDK comes with the first key held in KMS (awsKmsSigner.ts): most deployments hold none, and every
 * start, a CLI command's too, paid for it.
 */
describe('modules loaded when walletd starts', () => {
  const dist = join(__dirname, '..', '..', 'dist');
  const loaded = (script: string): string[] => {
    const run = spawnSync(process.execPath, ['-e', script], { cwd: dist, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    return JSON.parse(run.stdout) as string[];
  };
  const heavy =
    /node_modules\/(@zxcvbn-ts\/[^/]+|mailparser|smtp-server|@simplewebauthn\/server|nodemailer|qrcode|@aws-sdk\/[^/]+|@smithy\/[^/]+)\//;

  it('the server package and `serve` load none of the dictionaries, the devnet mailbox, WebAuthn, the SMTP client, the QR encoder or the AWS SDK', () => {
    const files = loaded(
      `require(${JSON.stringify(join(dist, 'index.js'))}); require(${JSON.stringify(join(dist, 'cli', 'serve.js'))});
       process.stdout.write(JSON.stringify(Object.keys(require.cache)));`,
    );
    expect(files.some((f) => f.includes('/server/dist/cli/serve.js'))).toBe(true);
    expect([...new Set(files.map((f) => heavy.exec(f)?.[1]).filter(Boolean))]).toEqual([]);
  });

  it('checking a password loads the dictionaries then, and still refuses a guessable one', () => {
    const files = loaded(
      `const { checkPasswordStrength } = require(${JSON.stringify(join(dist, 'members', 'signIn', 'passwordStrength.js'))});
       let refused = null;
       try { checkPasswordStrength('password1234'); } catch (e) { refused = e.details?.reason ?? String(e); }
       checkPasswordStrength('violet-harbor-tractor-91');
       process.stdout.write(JSON.stringify([refused, ...Object.keys(require.cache)]));`,
    );
    expect(files[0]).toBe('password_too_guessable');
    expect(files.some((f) => /@zxcvbn-ts\/language-en\//.test(f))).toBe(true);
  });
});
