import { readFileSync } from 'node:fs';
import { BaseError } from '@walletd/plugin-kit';
import type { MasterKeySettings, Pkcs11KeySettings } from '../config/masterKeySettings';
import { MasterKey } from './envelope';
import { loadMasterKey } from './masterKeyFile';
import { Pkcs11KeyBackend, type Pkcs11MasterKeyConfig } from './pkcs11KeyBackend';

export interface OpenedMasterKey {
  key: MasterKey;
  /** Where it lives, for logs and refusals (never the key or the PIN). */
  origin: string;
  /** A key file made on this first start (the file form only). */
  created: boolean;
  /** Ends the token sessions (the pkcs11 form); nothing for the file form. */
  close(): void;
}

interface Where {
  masterKeyFile: string | null;
  dataDir: string;
  masterKey: MasterKeySettings;
}

/**
 * The master key the config names: a PKCS#11 token's key, else WALLETD_MASTER_KEY or the key file;
 * with `masterKey.previous` during a rotation. A token form never creates or reads a key file.
 */
export function openMasterKey(where: Where, env: NodeJS.ProcessEnv = process.env): OpenedMasterKey {
  const { pkcs11, previous } = where.masterKey;
  const tokens: Pkcs11KeyBackend[] = [];
  const close = () => {
    for (const t of tokens) t.close();
  };
  try {
    let before: MasterKey | null = null;
    if (previous && 'file' in previous) before = loadMasterKey({ env: {}, file: previous.file, dataDir: where.dataDir }).key;
    if (previous && 'pkcs11' in previous) {
      tokens.push(new Pkcs11KeyBackend(tokenConfig(previous.pkcs11, env, 'masterKey.previous.pkcs11')));
      before = new MasterKey(tokens[tokens.length - 1] as Pkcs11KeyBackend);
    }
    if (pkcs11) {
      if (env.WALLETD_MASTER_KEY) {
        throw new BaseError('config_invalid', 'WALLETD_MASTER_KEY is set and masterKey.pkcs11 is configured: give the master key one way');
      }
      const backend = new Pkcs11KeyBackend(tokenConfig(pkcs11, env, 'masterKey.pkcs11'));
      tokens.push(backend);
      return { key: new MasterKey(backend, before), origin: tokenOrigin(pkcs11), created: false, close };
    }
    const file = loadMasterKey({ env, file: where.masterKeyFile, dataDir: where.dataDir });
    return { key: new MasterKey(file.key.backend, before), origin: file.origin, created: file.created, close };
  } catch (e) {
    close();
    throw e;
  }
}

export function tokenOrigin(s: Pkcs11KeySettings): string {
  const token = s.tokenLabel !== undefined ? `token "${s.tokenLabel}"` : `slot ${s.slot}`;
  return `the key "${s.keyLabel}" in the PKCS#11 ${token}`;
}

/** The backend's settings with the PIN read from where the config says; one clear line when it cannot be. */
export function tokenConfig(s: Pkcs11KeySettings, env: NodeJS.ProcessEnv, at: string): Pkcs11MasterKeyConfig {
  if ((s.tokenLabel === undefined) === (s.slot === undefined)) {
    throw new BaseError('config_invalid', `${at}: name the token by tokenLabel or by slot (one of the two)`);
  }
  if ((s.pinEnv === undefined) === (s.pinFile === undefined)) {
    throw new BaseError('config_invalid', `${at}: give the PIN by pinEnv or by pinFile (one of the two; never in the config file)`);
  }
  let pin: string | undefined;
  if (s.pinEnv !== undefined) {
    pin = env[s.pinEnv];
    if (!pin) throw new BaseError('config_invalid', `${at}: the environment variable ${s.pinEnv} (pinEnv) is not set`);
  } else {
    try {
      pin = readFileSync(s.pinFile as string, 'utf8').replace(/\r?\n$/, '');
    } catch (e) {
      throw new BaseError(
        'config_invalid',
        `${at}: cannot read the PIN file ${s.pinFile} (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
    if (!pin) throw new BaseError('config_invalid', `${at}: the PIN file ${s.pinFile} is empty`);
  }
  return {
    module: s.module,
    keyLabel: s.keyLabel,
    pin,
    ...(s.tokenLabel !== undefined ? { tokenLabel: s.tokenLabel } : {}),
    ...(s.slot !== undefined ? { slot: s.slot } : {}),
  };
}
