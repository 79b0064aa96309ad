/**
 * Everything a chain plugin needs from walletd, and nothing else: the plugin contract, money and
 * amounts, typed errors, the node transports and the key derivation helpers. The kernel
 * (`@walletd/core`: database, outbox, policies, auth, config, logs, metrics) depends on this
 * package, never the other way round, so a detect worker that loads a plugin loads no database
 * driver, HTTP server or metrics registry (bench/README.md, `coldstart`).
 */
export * from './errors';
export * from './money';
export * from './chains';
export * from './contract';
export * from './node';
export * from './keys';
export * from './sdk';
