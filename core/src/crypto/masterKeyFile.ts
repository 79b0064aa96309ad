import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { MasterKey } from './envelope';
import { BaseError } from '@walletd/plugin-kit';

export interface MasterKeySource {
  key: MasterKey;
  /** Where it came from, for the start-up log line (never the key itself). */
  origin: string;
  created: boolean;
}

function decode(text: string, origin: string): Buffer {
  const t = text.trim();
  const buf = /^[0-9a-fA-F]{64}$/.test(t) ? Buffer.from(t, 'hex') : Buffer.from(t, 'base64');
  if (buf.length !== 32)
    throw new BaseError('config_invalid', `master key from ${origin} must be 32 bytes, as 64 hex or 44 base64 characters`);
  return buf;
}

/**
 * WALLETD_MASTER_KEY (hex or base64), else the key file; the default key file is created with
 * mode 0600 on first start so that `npm start` works out of the box. Back it up: without it the
 * wallet secrets in the database cannot be opened.
 */
export function loadMasterKey(options: { env?: NodeJS.ProcessEnv; file: string | null; dataDir: string }): MasterKeySource {
  const env = options.env ?? process.env;
  if (env.WALLETD_MASTER_KEY) {
    return { key: new MasterKey(decode(env.WALLETD_MASTER_KEY, 'WALLETD_MASTER_KEY')), origin: 'WALLETD_MASTER_KEY', created: false };
  }
  const explicit = options.file !== null;
  const file = options.file ?? join(options.dataDir, 'master.key');
  if (existsSync(file)) {
    return { key: new MasterKey(decode(readKeyFile(file), file)), origin: file, created: false };
  }
  if (explicit) throw new BaseError('config_invalid', `master key file ${file} does not exist`);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  try {
    writeFileSync(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (e) {
    // Another process of the same first start wrote it in between: that key is the one.
    if ((e as NodeJS.ErrnoException).code === 'EEXIST')
      return { key: new MasterKey(decode(readKeyFile(file), file)), origin: file, created: false };
    throw e;
  }
  chmodSync(file, 0o600);
  return { key: new MasterKey(key), origin: file, created: true };
}

/** Node says "EISDIR: illegal operation on a directory, read" without the path: say which file. */
function readKeyFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EISDIR') throw new BaseError('config_invalid', `the master key file ${file} is a folder; give the path of a file`);
    if (code === 'EACCES' || code === 'EPERM')
      throw new BaseError('config_invalid', `the master key file ${file} cannot be read: permission denied for this user`);
    throw e;
  }
}
