import type { Command } from 'commander';
import { BaseError, loadConfig } from '@walletd/core';
import { LOCAL_CHAIN_MODULES } from '@walletd/devchains/dist/localChainModules';
import { localAmount } from '../../devnet/localAmount';
import { readLocalChainInfo } from '../../devnet/localChains';
import { printJson } from '../output';
import { apiTarget, callApi } from './apiClient';

const TRIGGERS = ['deposit.detected', 'deposit.confirmed'];
const WALLET = 'walletd trigger';

/**
 * `walletd trigger deposit.confirmed` (issue 47 §2): a real deposit on a local chain to a fresh
 * address of a wallet named "walletd trigger", so a receiver (behind `walletd listen`) gets
 * `deposit.detected` and then `deposit.confirmed` without waiting for anyone to pay. Devnet only.
 */
export function registerTrigger(program: Command): void {
  program
    .command('trigger')
    .description('make a real devnet deposit so its events fire: deposit.detected, then deposit.confirmed (devnet only)')
    .argument('<event>', TRIGGERS.join(' or '))
    .option('--chain <name>', 'the local chain (default: the first of devnet.chains)')
    .option('--amount <decimal>', 'the deposit, in display units', '0.01')
    .option('--api <url>', 'the running walletd’s API (default http://127.0.0.1:$PORT or 8080)')
    .option('--key <apiKey>', 'an API key with wallets:write (default WALLETD_API_KEY)')
    .action(async (event: string, o, cmd) => {
      if (!TRIGGERS.includes(event))
        throw new BaseError('usage_invalid', `walletd trigger makes ${TRIGGERS.join(' and ')} (a deposit); got "${event}"`);
      const config = loadConfig({ file: cmd.optsWithGlobals().config });
      const wanted = String(o.chain ?? config.devnet.chains[0] ?? '').toLowerCase();
      const m = LOCAL_CHAIN_MODULES.find((x) => x.name === wanted || x.follows.chain === wanted);
      if (!m)
        throw new BaseError(
          'usage_invalid',
          `--chain ${wanted}: the local chains are ${LOCAL_CHAIN_MODULES.map((x) => x.name).join(', ')}`,
        );
      let info: ReturnType<typeof readLocalChainInfo>;
      try {
        info = readLocalChainInfo(config.dataDir, m.name);
      } catch {
        throw new BaseError(
          'usage_invalid',
          `walletd trigger works on the devnet only, and no local "${m.name}" chain runs (npm start runs it)`,
        );
      }
      const target = apiTarget(o);
      const { wallets } = await callApi<{ wallets: { id: number; name: string; chain: string; network: string }[] }>(
        target,
        'GET',
        '/wallets',
      );
      const mine = wallets.find((w) => w.name === WALLET && w.chain === info.chain && w.network === info.network);
      const walletId =
        mine?.id ??
        (await callApi<{ id: number }>(target, 'POST', '/wallets', { name: WALLET, chain: info.chain, network: info.network })).id;
      const { address } = await callApi<{ address: string }>(target, 'POST', `/wallets/${walletId}/addresses`, {});
      const { units, asset } = localAmount(info, String(o.amount), undefined);
      const txHash = await m.fund(info, { address, amount: units });
      printJson({ event, walletId, address, amount: String(o.amount), asset, txHash });
      process.stderr.write(`paid ${o.amount} ${asset} to ${address}: deposit.detected, then deposit.confirmed follow\n`);
    });
}
