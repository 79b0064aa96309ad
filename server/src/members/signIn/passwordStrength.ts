import type { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { BaseError } from '@walletd/core';

/**
 * zxcvbn's score runs 0-4; 3 means about 10^8 guesses or more ("safely unguessable: moderate
 * protection from an offline slow-hash attack"), what a 12-character minimum alone does not give:
 * `password1234`, `Password123!` and `iloveyou12345` are long enough and score 1.
 */
export const MIN_PASSWORD_SCORE = 3;

let factory: ZxcvbnFactory | undefined;
/**
 * Built on first use, its packages required then too: the dictionaries are 12.7 MB of heap and
 * take a moment to load, and most processes never set a password (an API process carrying them
 * spent longer in every full garbage collection, bench/README.md `api`).
 */
const estimator = (): ZxcvbnFactory => {
  if (factory) return factory;
  const { ZxcvbnFactory: Factory } = require('@zxcvbn-ts/core') as typeof import('@zxcvbn-ts/core');
  const { adjacencyGraphs, dictionary: common } = require('@zxcvbn-ts/language-common') as typeof import('@zxcvbn-ts/language-common');
  const { dictionary: english, translations } = require('@zxcvbn-ts/language-en') as typeof import('@zxcvbn-ts/language-en');
  factory = new Factory({ dictionary: { ...common, ...english }, graphs: adjacencyGraphs, translations });
  return factory;
};

/**
 * Refuses a password that common-password lists, dictionary words with predictable changes,
 * keyboard walks, repeats or dates make easy to guess: 400 `validation_failed` with
 * `reason: "password_too_guessable"` and zxcvbn's advice in the message. `hints` (the member's
 * email) count as guessable too.
 */
export function checkPasswordStrength(password: string, hints: string[] = []): void {
  const result = estimator().check(password, hints);
  if (result.score >= MIN_PASSWORD_SCORE) return;
  const advice = [result.feedback.warning, ...result.feedback.suggestions].filter(Boolean).join(' ');
  throw new BaseError('validation_failed', `The password is too easy to guess${advice ? `: ${advice}` : ''}`, {
    details: { reason: 'password_too_guessable' },
  });
}
