/**
 * `@walletd/plugin-kit/testing`: the public conformance kit. A separate entry point (package.json
 * `exports`), so a plugin's runtime never loads it. Plain async checks (`runConformance`) that any
 * test runner can call, and `describe…` adapters for runners with jest's globals; it imports no
 * test runner, database or server (plugin-kit/src/dependencyRule.test.ts).
 */
export * from './suite';
export * from './scenarios';
export * from './pluginConformance';
export * from './withdrawalConformance';
export { contextOf, detectOf } from './detectionChecks';
