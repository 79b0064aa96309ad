import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BALANCES_AT_CODE } from './balancesAt';

/**
 * The creation code walletd sends is the contract in plugins/evm/contracts, compiled as the module
 * says; what it reads on a node is tested on anvil (test/src/integration/evmBalancesAt.test.ts).
 */
describe('BalancesAt', () => {
  it('is contracts/BalancesAt.sol compiled by solc 0.8.37, optimizer 200 runs, no metadata', () => {
    const solc = require('solc') as { compile(input: string): string; version(): string };
    const source = readFileSync(join(__dirname, '..', '..', 'contracts', 'BalancesAt.sol'), 'utf8');
    const settings = {
      optimizer: { enabled: true, runs: 200 },
      metadata: { appendCBOR: false },
      outputSelection: { '*': { '*': ['evm.bytecode.object'] } },
    };
    const output = JSON.parse(
      solc.compile(JSON.stringify({ language: 'Solidity', sources: { 'BalancesAt.sol': { content: source } }, settings })),
    );
    expect(solc.version()).toMatch(/^0\.8\.37\+/);
    expect((output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error')).toEqual([]);
    expect(`0x${output.contracts['BalancesAt.sol'].BalancesAt.evm.bytecode.object}`).toBe(BALANCES_AT_CODE);
  });
});
