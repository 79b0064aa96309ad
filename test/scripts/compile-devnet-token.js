#!/usr/bin/env node
// Regenerates devchains/src/testToken.json (ABI + bytecode of test/contracts/TestToken.sol)
// with solc-js, so `npm start`'s devnet can deploy a token without a compiler at run time.
// The test harness compiles through the same function; a test checks the committed file is current.
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const solc = require('solc');

const root = join(__dirname, '..', '..');
const TARGET = join(root, 'devchains', 'src', 'testToken.json');

/** ABI + bytecode of test/contracts/TestToken.sol. */
function compileTestToken() {
  const source = readFileSync(join(root, 'test', 'contracts', 'TestToken.sol'), 'utf8');
  const output = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: { 'TestToken.sol': { content: source } },
        settings: { optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
      }),
    ),
  );
  const errors = (output.errors || []).filter((e) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const c = output.contracts['TestToken.sol'].TestToken;
  return { compiler: `solc ${solc.version()}`, source: 'test/contracts/TestToken.sol', abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
}

module.exports = { compileTestToken, TARGET };

if (require.main === module) {
  writeFileSync(TARGET, `${JSON.stringify(compileTestToken(), null, 2)}\n`);
  console.log('wrote devchains/src/testToken.json');
}
