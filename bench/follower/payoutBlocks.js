/**
 * Blocks whose deposits only call traces show (issue 41 §1): each holds one `Payouts.batch` paying
 * `perBlock` addresses native coins from contract code (test/contracts/Payouts.sol, compiled with
 * solc-js offline), 1 % of them watched. Without traces the follower records none of them.
 */
const { Interface } = require('ethers');
const { compilePayouts } = require('../../test/scripts/compile-payouts');

async function minePayoutBlocks({ rpc, mined, url, from, watched, addr, blocks, perBlock }) {
  const { abi, bytecode } = compilePayouts();
  const deployed = await mined(url, await rpc(url, 'eth_sendTransaction', [{ from, data: bytecode }]));
  const iface = new Interface(abi);
  const first = BigInt(await rpc(url, 'eth_blockNumber')) + 1n;
  for (let b = 0; b < blocks; b++) {
    const to = [];
    for (let i = 0; i < perBlock; i++) to.push(i % 100 === 7 ? watched[(i + b) % watched.length] : addr());
    const wei = to.map((_, i) => BigInt(i + 1));
    const data = iface.encodeFunctionData('batch', [to, wei]);
    const value = `0x${wei.reduce((a, c) => a + c, 0n).toString(16)}`;
    await mined(url, await rpc(url, 'eth_sendTransaction', [{ from, to: deployed.contractAddress, data, value, gas: '0x1c9c380' }]));
  }
  const last = BigInt(await rpc(url, 'eth_blockNumber'));
  return { from: first, to: last, deposits: Array.from({ length: perBlock }, (_, i) => i).filter((i) => i % 100 === 7).length * blocks };
}

module.exports = { minePayoutBlocks };
