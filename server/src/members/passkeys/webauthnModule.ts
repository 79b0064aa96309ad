/**
 * `@simplewebauthn/server`, required on the first passkey ceremony rather than when walletd starts:
 * 4.6 MB of heap that every API and dispatcher process carried, though members enrol and use
 * passkeys rarely, and every full garbage collection walks the whole heap (bench/README.md `api`,
 * lazyModules.test).
 */
export const webauthn = (): typeof import('@simplewebauthn/server') =>
  require('@simplewebauthn/server') as typeof import('@simplewebauthn/server');
