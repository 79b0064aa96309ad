// ABI + bytecode of test/contracts/Payouts.sol with solc-js (offline): the contract that moves
// native coins the ways exchanges, batch payouts and Safe multisigs do (issue 41 §1).
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const solc = require('solc');

let compiled;
function compilePayouts() {
  if (compiled) return compiled;
  const source = readFileSync(join(__dirname, '..', 'contracts', 'Payouts.sol'), 'utf8');
  const output = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: { 'Payouts.sol': { content: source } },
        settings: { optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
      }),
    ),
  );
  const errors = (output.errors || []).filter((e) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const c = output.contracts['Payouts.sol'].Payouts;
  compiled = { compiler: `solc ${solc.version()}`, abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
  return compiled;
}

module.exports = { compilePayouts };
