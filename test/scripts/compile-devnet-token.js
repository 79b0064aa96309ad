#!/usr/bin/env node
// Regenerates server/src/devnet/testToken.json (ABI + bytecode of test/contracts/TestToken.sol)
// with solc-js, so `npm start`'s devnet can deploy a token without a compiler at run time.
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const solc = require('solc');

const root = join(__dirname, '..', '..');
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
const out = {
  compiler: `solc ${solc.version()}`,
  source: 'test/contracts/TestToken.sol',
  abi: c.abi,
  bytecode: `0x${c.evm.bytecode.object}`,
};
writeFileSync(join(root, 'server', 'src', 'devnet', 'testToken.json'), `${JSON.stringify(out, null, 2)}\n`);
console.log('wrote server/src/devnet/testToken.json');
