export * from './testDatabase';
export * from './testApp';
export * from './seed';
export * from './walletdProcess';
export * from './receiver';
export * from './tarpit';
export * from './events';
export * from './eventually';
export * from './wholeFeed';
export * from './dogecoinPayout';
export * from './anvil';
export * from './testToken';
export * from './feeToken';
export * from './payouts';
export * from './describeWithLitecoind';
export * from './follower';
export * from './schemas';
export * from './schemaArbitrary';
export * from './rpcProxy';
export * from './dedicatedPostgres';
export * from './recordingPlugin';
export * from './recordedTronNode';
export * from './recordedRippled';
export * from './tonFixtures';
export * from './signedDelivery';
export * from './oversizedNode';
export * from './consoleApp';
export * from './fundedTreasury';
export * from './signUpWithLink';
export * from './examplePlugin';
export * from './sweepHarness';
// Adapters over real engines (litesvm, @ton/sandbox, chopsticks, litecoind): the same code `walletd dev` runs.
// Named, each from its own module, never `export *`: jest compiles tests with swc's lazy imports
// (jest.config.js), so a file loads an engine (polkadot.js alone takes seconds per file) only
// when it calls it; `export *` would load every engine into every test file.
export {
  type Block,
  type BlockTx,
  type SolanaSvmNode,
  type SolanaSvmOptions,
  type TokenState,
  rpcError,
  startSolanaSvm,
} from '@walletd/devchains/dist/solanaSvm';
export { TonSandboxNode } from '@walletd/devchains/dist/tonSandbox';
export { type Chopsticks, startChopsticks } from '@walletd/devchains/dist/chopsticks';
export { type RegtestNode, asLitecoind, litecoindAvailable, startLitecoind } from '@walletd/devchains/dist/litecoind';
export type { FundRequest, LocalChain, LocalChainInfo } from '@walletd/devchains/dist/localChain';
export { SOLANA_FUND_METHOD, rpcBody, startLocalSolana } from '@walletd/devchains/dist/localSolana';
export { startLocalTon } from '@walletd/devchains/dist/localTon';
export * from './playground';
export * from './chains';
export * from './streamingReplica';
export * from './balanceSweeper';
export * from './softPasskey';
export * from './softhsm';
export * from './otlpReceiver';
export * from './kmsEmulator';
export * from './nestedPlans';
export * from './webhookCompany';
