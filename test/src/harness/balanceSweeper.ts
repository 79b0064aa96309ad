import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Interface } from 'ethers';
import { ANVIL_FUNDER, type Anvil } from './anvil';

let compiled: { abi: unknown[]; bytecode: string } | undefined;

/** Compiles test/contracts/BalanceSweeper.sol with solc-js (offline), once per process. */
function compile(): { abi: unknown[]; bytecode: string } {
  if (compiled) return compiled;
  const solc = require('solc') as { compile(input: string): string };
  const content = readFileSync(join(__dirname, '..', '..', 'contracts', 'BalanceSweeper.sol'), 'utf8');
  const output = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: { 'BalanceSweeper.sol': { content } },
        settings: { optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
      }),
    ),
  ) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const c = output.contracts['BalanceSweeper.sol']?.BalanceSweeper;
  if (!c) throw new Error('BalanceSweeper did not compile');
  compiled = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
  return compiled;
}

export interface BalanceSweeper {
  address: string;
  /**
   * `sweep(token, to)` signed by the funder with `nonce`, not sent: the raw bytes, to send on one
   * branch and again on another (its hash is the same; what it moves depends on the branch).
   */
  signSweep(token: string, to: string, nonce: bigint): Promise<string>;
}

/** Deploys a BalanceSweeper from the funder (test/contracts/BalanceSweeper.sol). */
export async function deployBalanceSweeper(anvil: Anvil): Promise<BalanceSweeper> {
  const { abi, bytecode } = compile();
  const iface = new Interface(abi as never);
  const hash = await anvil.rpc<string>('eth_sendTransaction', [{ from: ANVIL_FUNDER, data: bytecode }]);
  const receipt = await anvil.receipt(hash);
  if (receipt.status !== '0x1' || !receipt.contractAddress) throw new Error('BalanceSweeper deployment failed');
  const address = receipt.contractAddress;
  return {
    address,
    signSweep: (token, to, nonce) =>
      anvil.rpc<string>('eth_signTransaction', [
        {
          from: ANVIL_FUNDER,
          to: address,
          data: iface.encodeFunctionData('sweep', [token, to]),
          nonce: `0x${nonce.toString(16)}`,
          gas: '0x30d40',
          // Well above any base fee the test's short chains reach, on either branch.
          maxFeePerGas: '0x174876e800',
          maxPriorityFeePerGas: '0x3b9aca00',
        },
      ]),
  };
}
