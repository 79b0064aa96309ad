import { type ChainSettings, type Db, createLogger } from '@walletd/core';
import { type DetectPool, type Follower, createFollower } from '@walletd/indexer';
import { loadPlugins } from '@walletd/server';

/** A follower as `walletd serve --roles indexer` runs it (the plugins this build ships), logs silenced. */
export function testFollower(db: Db, pool: DetectPool, settings: ChainSettings): Follower {
  const plugin = loadPlugins().forChain(settings.chain);
  if (!plugin) throw new Error(`no plugin serves ${settings.chain}`);
  return createFollower({ db, logger: createLogger({ level: 'silent' }), pool, plugin, settings });
}
