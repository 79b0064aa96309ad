/** The second factors a sign-in can pass; a recovery code gets an audit row of its own. */
export type SecondFactorUsed = 'totp' | 'recovery_code' | 'passkey' | null;

/**
 * Whether a factor proves the member holds their authenticator right now, so the session it opens
 * starts stepped up. A recovery code does not: it is a printed fallback for a lost authenticator,
 * the likeliest thing to be stolen with a password, so it signs in but every step-up action still
 * asks for a fresh authenticator code. A passkey assertion (user-verified, signed over a fresh
 * challenge) is one, like a TOTP code. The one place that decides it: a new factor joins here.
 */
export function isStepUpFactor(factor: SecondFactorUsed): boolean {
  return factor === 'totp' || factor === 'passkey';
}
