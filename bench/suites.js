/**
 * The benchmark suites `npm run bench -- <suite>` runs: each a module under bench/ exporting
 * `main(argv)`. Apart from run.js so a test (test/src/integration/benchSuites.test.ts) can load
 * every one of them without running it: a suite whose imports moved fails there, not on the next
 * person who measures.
 */
const SUITES = {
  outbox: () => require('./outbox/main'),
  indexer: () => require('./indexer/main'),
  utxo: () => require('./utxo/main'),
  follower: () => require('./follower/main'),
  solana: () => require('./solana/main'),
  api: () => require('./api/main'),
  'api-ab': () => require('./api/ab'),
  'api-inprocess': () => require('./api/inProcess'),
  polkadot: () => require('./polkadot/main'),
  scale: () => require('./scale/main'),
  coldstart: () => require('./coldstart/main'),
};

module.exports = { SUITES };
