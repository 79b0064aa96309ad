import { Address, beginCell, toNano } from '@ton/core';
import type { LocalChain } from './localChain';
import { TonSandboxNode } from './tonSandbox';
import { BaseError } from '@walletd/core';

/**
 * TON on @ton/sandbox for `walletd serve` (ton/localnet): the toncenter adapter on `port`, a
 * masterchain block every second, and a local USDT jetton (6 decimals, the standard jetton
 * contracts from @ton-community/assets-sdk) whose admin is the sandbox's treasury. The emulator
 * keeps its state in memory only: each start is a new chain.
 */
export async function startLocalTon(options: { port: number }): Promise<LocalChain> {
  const { JettonMinter } = require('@ton-community/assets-sdk') as typeof import('@ton-community/assets-sdk');
  let fund: (params: unknown[]) => Promise<unknown> = async () => undefined;
  const node = await TonSandboxNode.start({ port: options.port, extra: { walletd_fund: (p) => fund(p) } });
  const admin = await node.chain.treasury('walletd-playground');
  const minter = node.chain.openContract(JettonMinter.createFromConfig({ admin: admin.address, content: beginCell().endCell() }));
  node.record(await minter.sendDeploy(admin.getSender(), toNano('0.1')));
  node.mine();
  // [address, base units as a decimal string, token symbol?]: a real transfer or jetton mint, in the next block.
  fund = async (params) => {
    const [to, amount, token] = params as [string, string, string | null | undefined];
    const dest = Address.parse(to);
    if (token == null) {
      const r = node.record(await admin.send({ to: dest, value: BigInt(amount), bounce: false }));
      return r.transactions[0]?.hash().toString('hex');
    }
    if (token.toUpperCase() !== 'USDT') throw new BaseError('input_invalid', `the local TON chain has one token: USDT (not ${token})`);
    const r = node.record(await minter.sendMint(admin.getSender(), dest, BigInt(amount), { value: toNano('0.2'), notify: { amount: 1n } }));
    return r.transactions[0]?.hash().toString('hex');
  };
  const ticker = setInterval(() => node.mine(), 1000);
  ticker.unref();
  return {
    fresh: true,
    info: {
      chain: 'ton',
      network: 'localnet',
      rpcUrl: node.url,
      tokens: [{ contract: minter.address.toString(), symbol: 'USDT', decimals: 6 }],
      genesis: node.blocks[0]?.rootHash ?? '',
      pid: process.pid,
      // The follower reads the block before its first (seqno 1 has none before it).
      settings: { pollIntervalMs: 500, startBlock: node.seqno + 1 },
    },
    stop: async () => {
      clearInterval(ticker);
      await node.close();
    },
  };
}
