import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Interface } from 'ethers';
import { ANVIL_FUNDER, type Anvil } from './anvil';

let compiled: { abi: unknown[]; bytecode: string } | undefined;

/** Compiles test/contracts/FeeToken.sol with solc-js (offline), once per process. */
function compile(): { abi: unknown[]; bytecode: string } {
  if (compiled) return compiled;
  const solc = require('solc') as { compile(input: string): string };
  const source = readFileSync(join(__dirname, '..', '..', 'contracts', 'FeeToken.sol'), 'utf8');
  const output = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: { 'FeeToken.sol': { content: source } },
        settings: { optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
      }),
    ),
  ) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const c = output.contracts['FeeToken.sol']?.FeeToken as { abi: unknown[]; evm: { bytecode: { object: string } } };
  compiled = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
  return compiled;
}

export interface FeeToken {
  address: string;
  mint(to: string, amount: bigint): Promise<string>;
  /** Sent from `from` (an unlocked anvil account; the funder by default). */
  transfer(to: string, amount: bigint, from?: string): Promise<string>;
  transferFrom(owner: string, to: string, amount: bigint, from?: string): Promise<string>;
  balanceOf(address: string): Promise<bigint>;
}

/**
 * Deploys test/contracts/FeeToken.sol (6 decimals): `feeBps` of each transfer burned (or paid to
 * `collector`); `logsNet` false logs the full amount to the recipient, true logs what arrived.
 */
export async function deployFeeToken(anvil: Anvil, options: { feeBps: number; logsNet: boolean; collector?: string }): Promise<FeeToken> {
  const { abi, bytecode } = compile();
  const iface = new Interface(abi as never);
  const args = [options.feeBps, options.collector ?? '0x0000000000000000000000000000000000000000', options.logsNet];
  const hash = await anvil.rpc<string>('eth_sendTransaction', [{ from: ANVIL_FUNDER, data: bytecode + iface.encodeDeploy(args).slice(2) }]);
  const receipt = await anvil.receipt(hash);
  if (receipt.status !== '0x1' || !receipt.contractAddress) throw new Error('FeeToken deployment failed');
  const address = receipt.contractAddress;
  const call = async (fn: string, args: unknown[], from = ANVIL_FUNDER) => {
    const tx = await anvil.rpc<string>('eth_sendTransaction', [{ from, to: address, data: iface.encodeFunctionData(fn, args) }]);
    const r = await anvil.receipt(tx);
    if (r.status !== '0x1') throw new Error(`FeeToken.${fn} reverted`);
    return tx;
  };
  return {
    address,
    mint: (to, amount) => call('mint', [to, amount]),
    transfer: (to, amount, from) => call('transfer', [to, amount], from),
    transferFrom: (owner, to, amount, from) => call('transferFrom', [owner, to, amount], from),
    balanceOf: async (a) =>
      BigInt(await anvil.rpc<string>('eth_call', [{ to: address, data: iface.encodeFunctionData('balanceOf', [a]) }, 'latest'])),
  };
}
