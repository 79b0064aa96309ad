import { existsSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { BaseError, isPublicError } from '@walletd/core';

/**
 * Node's file errors read "EEXIST: file already exists, open 'x'": the operator should instead
 * learn which file, what is wrong with it and what to do. `what` names the file's role
 * ("the private key", "the sealed secret").
 */
export function fileErrorInWords(err: unknown, path: string, what: string): Error {
  const code = (err as NodeJS.ErrnoException)?.code;
  switch (code) {
    case 'ENOENT':
      return new BaseError('usage_invalid', `${what} ${path} does not exist (or its folder does not)`);
    case 'EACCES':
    case 'EPERM':
      return new BaseError('usage_invalid', `${what} ${path} cannot be opened: permission denied for this user`);
    case 'EISDIR':
      return new BaseError('usage_invalid', `${what} ${path} is a folder; give the path of a file`);
    case 'EEXIST':
      return new BaseError(
        'usage_invalid',
        `${what} ${path} already exists; walletd never overwrites a key: give another path, or move the old file away first`,
      );
    case 'ENOSPC':
      return new BaseError('setup_failed', `${what} ${path} cannot be written: the disk is full`);
    default:
      return err instanceof Error ? err : new BaseError('usage_invalid', String(err));
  }
}

export function readTextFile(path: string | 0, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw fileErrorInWords(e, path === 0 ? 'from standard input' : path, what);
  }
}

/** Writes files that must not exist yet, all or none: a failure leaves no half-written pair. */
export function writeNewFiles(files: { path: string; content: string; mode?: number; what: string }[]): void {
  for (const f of files) if (existsSync(f.path)) throw fileErrorInWords({ code: 'EEXIST' }, f.path, f.what);
  const written: string[] = [];
  for (const f of files) {
    try {
      // 'wx' all the same: a file appearing since the check is not overwritten.
      writeFileSync(f.path, f.content, { mode: f.mode, flag: 'wx' });
      written.push(f.path);
    } catch (e) {
      for (const p of written) unlinkSync(p);
      throw fileErrorInWords(e, f.path, f.what);
    }
  }
}

/** A library's message in words about one file's content gets the file's name in front. */
export function aboutFile<T>(path: string, what: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (isPublicError(e)) throw new BaseError(e.code, `${what} ${path}: ${e.message}`);
    throw e;
  }
}
