import { Algorithm, hash, verify } from '@node-rs/argon2';
import { BaseError } from '@walletd/core';
import { HashGate } from './hashGate';

/**
 * argon2id with OWASP's first recommended setting (m = 19 MiB, t = 2, p = 1): memory-hard, so a
 * stolen table costs an attacker memory per guess, and about 20-40 ms per sign-in here.
 * The parameters are stored in each hash ($argon2id$v=19$m=19456,t=2,p=1$...), so raising them
 * later still verifies older hashes.
 */
export const PASSWORD_KDF = { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const PASSWORD_MIN_LENGTH = 12;
/** The KDF reads every byte: a bound keeps one request from costing much more than another. */
export const PASSWORD_MAX_LENGTH = 256;

export function checkPasswordShape(password: unknown): string {
  if (typeof password !== 'string' || password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
    throw new BaseError('validation_failed', `The password must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters long`);
  }
  return password;
}

/** Every hash and verify of this process passes the gate (consoleApp sets its size from the config). */
let gate = new HashGate(4, 32);
export function limitConcurrentHashes(concurrency: number): void {
  gate = new HashGate(concurrency, concurrency * 8);
}

export function hashPassword(password: string): Promise<string> {
  return gate.run(() => hash(password, PASSWORD_KDF));
}

let dummy: Promise<string> | undefined;

/**
 * Verifies a password against a stored hash, or against a throwaway hash when there is none, so a
 * sign-in with an unknown email runs the same KDF as one with a known email (same timing path).
 */
export async function verifyPassword(stored: string | null, password: string): Promise<boolean> {
  if (!stored) {
    dummy ??= hashPassword('walletd: no such member, the same work anyway');
    const throwaway = await dummy;
    await gate.run(() => verify(throwaway, password).catch(() => false));
    return false;
  }
  return gate.run(() => verify(stored, password).catch(() => false));
}
