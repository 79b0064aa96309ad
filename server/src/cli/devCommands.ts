import type { Command } from 'commander';
import { BaseError, createLogger, loadConfig } from '@walletd/core';
import { LOCAL_CHAIN_MODULES } from '@walletd/devchains/dist/localChainModules';
import { createDetectPool, createFollower, forgetChain } from '@walletd/indexer';
import { readInbox } from '../devnet/devnetMailbox';
import { localAmount } from '../devnet/localAmount';
import { localChainFile, readLocalChainInfo } from '../devnet/localChains';
import { knownPlaygroundChains } from '../devnet/playground';
import { loadPlugins } from '../platform/plugins';
import { openRuntime } from '../platform/runtime';
import { printJson } from './output';

const names = LOCAL_CHAIN_MODULES.map((m) => m.name).join(', ');
const tokens = LOCAL_CHAIN_MODULES.filter((m) => m.tokens.length > 0)
  .map((m) => `${m.tokens.join('/')} (${m.name})`)
  .join(', ');

/** `walletd dev …` (the local devnet), `walletd indexer rescan` and `walletd indexer forget`. */
export function registerDev(program: Command): void {
  const dev = program.command('dev').description('the local chains that npm start runs when no chain is configured (devnet.chains)');
  dev
    .command('fund')
    .description("send a local chain's coin (or mint its test token) to an address")
    .requiredOption('--address <address>', 'recipient, e.g. a deposit address from POST /v1/wallets/:id/addresses')
    .requiredOption('--amount <decimal>', 'amount in display units, e.g. 1.5')
    .option('--chain <name>', `the local chain: ${names}, or the chain it is followed as (default: the first of devnet.chains)`)
    .option('--token <symbol>', `the local chain's test token instead of its coin: ${tokens}`)
    .action(async (o, cmd) => {
      const config = loadConfig({ file: cmd.optsWithGlobals().config });
      const wanted = String(o.chain ?? config.devnet.chains[0] ?? '').toLowerCase();
      const m = LOCAL_CHAIN_MODULES.find((x) => x.name === wanted || x.follows.chain === wanted);
      if (!m) throw new BaseError('usage_invalid', `--chain ${o.chain ?? wanted}: the local chains are ${names}`);
      const info = readLocalChainInfo(config.dataDir, m.name);
      // The chain's own plugin judges the address first: a typo is refused here, not by the node.
      const plugin = loadPlugins(config.plugins, config.chains).forChain(info.chain);
      if (plugin && !plugin.validateAddress(info.chain, info.network, String(o.address)))
        throw new BaseError(
          'usage_invalid',
          `--address ${o.address} is not a valid ${info.chain}/${info.network} address: nothing was sent`,
        );
      const token = o.token === undefined ? undefined : String(o.token);
      const { units, asset } = localAmount(info, String(o.amount), token);
      const txHash = await m.fund(info, { address: String(o.address), amount: units, token }).catch((e: Error) => {
        // Unreachable: say what usually runs the chain and where its address came from.
        if (!/did not answer/.test(e.message)) throw e;
        throw new BaseError(
          'usage_invalid',
          `${e.message}; is walletd serve (npm start) running with "${m.name}" in devnet.chains? (address from ${localChainFile(config.dataDir, m.name)})`,
        );
      });
      printJson({ txHash, chain: info.chain, network: info.network, to: o.address, amount: o.amount, asset });
    });

  dev
    .command('inbox')
    .description("the devnet's local mail inbox (npm start with no mail.smtp): invitation and reset links, newest first")
    .option('--last', 'only the newest mail')
    .action((o, cmd) => {
      const config = loadConfig({ file: cmd.optsWithGlobals().config });
      const mails = readInbox(config.dataDir);
      printJson(o.last ? (mails[0] ?? null) : mails);
    });

  const indexer = program.command('indexer').description('the chain indexer');
  indexer
    .command('rescan')
    .description('re-read blocks from a height: records what was missed, emits nothing twice')
    .requiredOption('--chain <chain>', 'the chain of a chains[] entry (or of a local chain)')
    .requiredOption('--network <network>', 'e.g. mainnet')
    .requiredOption('--from <height>', 'first block to re-read')
    .action(async (o, cmd) => {
      const config = loadConfig({ file: cmd.optsWithGlobals().config });
      const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'info', base: { role: 'rescan' } });
      if (!/^[0-9]+$/.test(String(o.from))) throw new BaseError('usage_invalid', '--from must be a block height');
      const chains = knownPlaygroundChains(config);
      const settings = chains.find((c) => c.chain === o.chain && c.network === o.network);
      if (!settings) throw new BaseError('usage_invalid', `${o.chain}/${o.network} is not in chains[] of the config`);
      const plugins = loadPlugins(config.plugins, config.chains);
      const plugin = plugins.forChain(settings.chain);
      if (!plugin) throw new BaseError('plugin_invalid', `no plugin serves ${settings.chain}`);
      const rt = await openRuntime(config, logger, { createCluster: false });
      const pool = createDetectPool(config.indexer.threads, { inlineBelowBytes: config.indexer.inlineDetectBytes });
      try {
        const before = Number((await rt.db('events').count('* as n'))[0]?.n ?? 0);
        const { to, stoppedAt } = await createFollower({ db: rt.db, logger, pool, plugin, settings }).rescanFrom(BigInt(o.from));
        const after = Number((await rt.db('events').count('* as n'))[0]?.n ?? 0);
        printJson({
          chain: o.chain,
          network: o.network,
          from: Number(o.from),
          to: Number(to),
          ...(stoppedAt !== null ? { stoppedAt: Number(stoppedAt) } : {}),
          newEvents: after - before,
        });
      } finally {
        await pool.close();
        await rt.close();
      }
    });
  indexer
    .command('forget')
    .description("drop a chain's cursor, recent blocks and recorded genesis (after replacing its node on purpose); deposits stay")
    .requiredOption('--chain <chain>', 'the chain of a chains[] entry (or of a local chain)')
    .requiredOption('--network <network>', 'e.g. devnet')
    .action(async (o, cmd) => {
      const config = loadConfig({ file: cmd.optsWithGlobals().config });
      const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'info', base: { role: 'indexer-forget' } });
      const rt = await openRuntime(config, logger, { createCluster: false });
      try {
        const result = await forgetChain(rt.db, { chain: String(o.chain), network: String(o.network) });
        printJson({ chain: o.chain, network: o.network, ...result });
      } finally {
        await rt.close();
      }
    });
}
