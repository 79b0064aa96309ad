import { DEVNET_FUNDER, type DevnetInfo, tokenInterface } from './devnet';
import { rpc, waitMined } from './devnetRpc';

/** `walletd dev fund`: devnet ETH from the funder, or devnet USDC minted to the address. */
export async function fund(info: DevnetInfo, address: string, amount: bigint, token?: 'USDC'): Promise<string> {
  const tx = token
    ? { from: DEVNET_FUNDER, to: info.usdc, data: tokenInterface.encodeFunctionData('mint', [address, amount]) }
    : { from: DEVNET_FUNDER, to: address, value: `0x${amount.toString(16)}` };
  const hash = await rpc<string>(info.rpcUrl, 'eth_sendTransaction', [tx]);
  await waitMined(info.rpcUrl, hash);
  return hash;
}
