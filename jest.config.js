/**
 * One jest run for every workspace, so one embedded PostgreSQL serves the whole run.
 * TypeScript is transpiled by swc (no type checking here: `npm test` runs `tsc -b` and the
 * test type-check first). Packages are imported through their built `dist`, the way users get them.
 */
const swc = [
  '@swc/jest',
  {
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    // lazy: a package a file imports is required when first used, not when the file loads. Every
    // test file imports the harness, which reaches every chain engine (polkadot.js alone takes
    // seconds to load per file under jest); each file now pays only for what it runs.
    module: { type: 'commonjs', ignoreDynamic: true, lazy: true },
  },
];

/**
 * xrpl 5 (its @noble/@scure 2.x and those of ripple-keypairs, ripple-address-codec and
 * @xrplf/isomorphic) ships ES modules only. Node 20.19+ requires them natively, jest's CommonJS
 * runtime cannot: those nested packages, and only those, are compiled to CommonJS by swc.
 */
const swcEsm = ['@swc/jest', { jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' } }];
const ESM_ONLY = '(xrpl|ripple-keypairs|ripple-address-codec|ripple-binary-codec|@xrplf/[^/]+)/node_modules/(@noble|@scure)/';

module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': swc, [`/node_modules/${ESM_ONLY}.+\\.js$`]: swcEsm },
  transformIgnorePatterns: [`^(?!.*/node_modules/${ESM_ONLY}).*/node_modules/`],
  roots: [
    '<rootDir>/plugin-kit',
    '<rootDir>/core',
    '<rootDir>/schemas',
    '<rootDir>/server',
    '<rootDir>/devchains',
    '<rootDir>/indexer',
    '<rootDir>/plugins',
    '<rootDir>/receiver',
    '<rootDir>/client',
    '<rootDir>/console-ui',
    '<rootDir>/test',
    // The example plugin lives outside the workspaces; its unit tests run here, against its sources.
    '<rootDir>/examples',
  ],
  // Each plugin's conformance suite lives in the plugin (plugins/<chain>/test/), beside its sources.
  testMatch: ['**/src/**/*.test.ts', '<rootDir>/plugins/*/test/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  moduleNameMapper: { '^@walletd/test-harness$': '<rootDir>/test/src/harness/index.ts' },
  globalSetup: '<rootDir>/test/src/harness/globalSetup.ts',
  globalTeardown: '<rootDir>/test/src/harness/globalTeardown.ts',
  testTimeout: 60000,
  // Slowest files first, from jest's cache or, on a fresh clone, the committed list of durations.
  testSequencer: '<rootDir>/test/jest/durationSequencer.js',
  // Two workers even on two cores: with one, jest runs every file in its own process, whose heap
  // grows with each file's fresh module registry (polkadot.js, xrpl, solana kit…) until it dies
  // out of memory near the end of a full run. Workers are recycled past the limit instead.
  maxWorkers: 2,
  workerIdleMemoryLimit: '1GB',
};
