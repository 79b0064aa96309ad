import { Interface } from 'ethers';
import { ANVIL_FUNDER, type Anvil } from './anvil';

/** test/contracts/Payouts.sol compiled with solc-js (offline), once per process. */
const compiled = () =>
  (require('../../scripts/compile-payouts.js') as { compilePayouts(): { abi: unknown[]; bytecode: string } }).compilePayouts();

/** A contract that pays native coins as exchanges, batch payouts and Safe multisigs do; each call from the funder, mined. */
export interface Payouts {
  address: string;
  /** Passes `wei` on to `to`. */
  forward(to: string, wei: bigint): Promise<string>;
  /** One transaction paying each `to[i]` `wei[i]`. */
  batch(to: string[], wei: bigint[]): Promise<string>;
  /** Safe-like: the contract pays `wei` to `to` from its own balance (fund it first). */
  execTransaction(to: string, wei: bigint): Promise<string>;
  /** Pays `to` 0.01 ETH inside a call that reverts, caught by try/catch: nothing arrives. */
  payThenCatch(to: string): Promise<string>;
  /** DELEGATECALL into `target` with `wei` on the frame: nothing arrives. */
  delegateTo(target: string, wei: bigint): Promise<string>;
  /** Pays `to` and reverts the whole transaction (mined with status 0). */
  payThenFail(to: string, wei: bigint): Promise<string>;
}

export async function deployPayouts(anvil: Anvil): Promise<Payouts> {
  const { abi, bytecode } = compiled();
  const iface = new Interface(abi as never);
  const hash = await anvil.rpc<string>('eth_sendTransaction', [{ from: ANVIL_FUNDER, data: bytecode }]);
  const receipt = await anvil.receipt(hash);
  if (receipt.status !== '0x1' || !receipt.contractAddress) throw new Error('Payouts deployment failed');
  const address = receipt.contractAddress;
  const hex = (n: bigint) => `0x${n.toString(16)}`;
  // A fixed gas limit: estimates of calls that revert inside (try/catch) run short, and a failing one must still be mined.
  const call = async (fn: string, args: unknown[], wei = 0n) => {
    const tx = await anvil.rpc<string>('eth_sendTransaction', [
      { from: ANVIL_FUNDER, to: address, data: iface.encodeFunctionData(fn, args), value: hex(wei), gas: hex(1_000_000n) },
    ]);
    await anvil.receipt(tx);
    return tx;
  };
  return {
    address,
    forward: (to, wei) => call('forward', [to], wei),
    batch: (to, wei) =>
      call(
        'batch',
        [to, wei],
        wei.reduce((a, b) => a + b, 0n),
      ),
    execTransaction: (to, wei) => call('execTransaction', [to, wei, '0x']),
    payThenCatch: (to) => call('payThenCatch', [to], 10n ** 16n),
    delegateTo: (target, wei) => call('delegateTo', [target], wei),
    payThenFail: (to, wei) => call('payThenFail', [to], wei),
  };
}
