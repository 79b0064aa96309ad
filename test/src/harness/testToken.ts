import { Interface } from 'ethers';
import { ANVIL_FUNDER, type Anvil } from './anvil';

let compiled: { abi: unknown[]; bytecode: string } | undefined;

/** Compiles test/contracts/TestToken.sol with solc-js (offline), once per process. */
function compile(): { abi: unknown[]; bytecode: string } {
  compiled ??= (
    require('../../scripts/compile-devnet-token.js') as { compileTestToken(): { abi: unknown[]; bytecode: string } }
  ).compileTestToken();
  return compiled;
}

export interface TestToken {
  address: string;
  mint(to: string, amount: bigint): Promise<string>;
  /** From the funder; `gas` forces a transaction that reverts to be mined anyway (status 0). */
  transfer(to: string, amount: bigint, options?: { gas?: bigint }): Promise<string>;
  batchTransfer(to: string[], amounts: bigint[]): Promise<string>;
  /** paused: transfers revert; quiet: transfers move balances without a Transfer event. */
  setQuirks(quirks: { paused?: boolean; quiet?: boolean }): Promise<string>;
}

export async function deployTestToken(anvil: Anvil, name: string, symbol: string, decimals: number): Promise<TestToken> {
  const { abi, bytecode } = compile();
  const iface = new Interface(abi as never);
  const data = bytecode + iface.encodeDeploy([name, symbol, decimals]).slice(2);
  const hash = await anvil.rpc<string>('eth_sendTransaction', [{ from: ANVIL_FUNDER, data }]);
  const receipt = await anvil.receipt(hash);
  if (receipt.status !== '0x1' || !receipt.contractAddress) throw new Error('TestToken deployment failed');
  const address = receipt.contractAddress;
  // Each call waits for its receipt, so transactions land in the order the test sends them.
  const call = async (fn: string, args: unknown[], extra: Record<string, string> = {}) => {
    const tx = await anvil.rpc<string>('eth_sendTransaction', [
      { from: ANVIL_FUNDER, to: address, data: iface.encodeFunctionData(fn, args), ...extra },
    ]);
    await anvil.receipt(tx);
    return tx;
  };
  return {
    address,
    mint: (to, amount) => call('mint', [to, amount]),
    transfer: (to, amount, options) => call('transfer', [to, amount], options?.gas ? { gas: `0x${options.gas.toString(16)}` } : {}),
    batchTransfer: (to, amounts) => call('batchTransfer', [to, amounts]),
    setQuirks: (q) => call('setQuirks', [q.paused ?? false, q.quiet ?? false]),
  };
}
