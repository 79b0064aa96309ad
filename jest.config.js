/**
 * One jest run for every workspace, so one embedded PostgreSQL serves the whole run.
 * TypeScript is transpiled by swc (no type checking here: `npm test` runs `tsc -b` and the
 * test type-check first). Packages are imported through their built `dist`, the way users get them.
 */
const swc = [
  '@swc/jest',
  { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs', ignoreDynamic: true } },
];

module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': swc },
  roots: [
    '<rootDir>/core',
    '<rootDir>/schemas',
    '<rootDir>/server',
    '<rootDir>/indexer',
    '<rootDir>/plugins',
    '<rootDir>/receiver',
    '<rootDir>/test',
  ],
  testMatch: ['**/src/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  moduleNameMapper: { '^@walletd/test-harness$': '<rootDir>/test/src/harness/index.ts' },
  globalSetup: '<rootDir>/test/src/harness/globalSetup.ts',
  globalTeardown: '<rootDir>/test/src/harness/globalTeardown.ts',
  testTimeout: 60000,
  maxWorkers: process.env.CI ? 2 : '50%',
};
