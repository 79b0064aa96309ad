import { join } from 'node:path';
import type { LocalChainModule } from './localChain';

/**
 * Every local chain this build runs, as `walletd serve` (`devnet.chains`) and `walletd dev fund`
 * iterate them; the service names none. Each requires its engine only when started or funded, so
 * reading this list loads none of them (litesvm, the TON emulator, polkadot.js are heavy).
 */
export const LOCAL_CHAIN_MODULES: readonly LocalChainModule[] = [
  {
    name: 'evm',
    follows: { chain: 'ethereum', network: 'devnet' },
    plugin: '@walletd/plugin-evm',
    tokens: ['USDC'],
    defaultPort: (devnet) => devnet.port,
    start: (o) => (require('./localEvm') as typeof import('./localEvm')).startLocalEvm(o),
    fund: (info, request) => (require('./fundAnvil') as typeof import('./fundAnvil')).fundAnvil(info, request),
  },
  {
    name: 'solana',
    follows: { chain: 'solana', network: 'localnet' },
    plugin: '@walletd/plugin-solana',
    tokens: ['USDC'],
    defaultPort: () => 58899,
    start: (o) => (require('./localSolana') as typeof import('./localSolana')).startLocalSolana(o),
    fund: (info, request) =>
      (require('./fundThroughAdapter') as typeof import('./fundThroughAdapter')).fundThroughAdapter(info, request, 'json-rpc'),
  },
  {
    name: 'ton',
    follows: { chain: 'ton', network: 'localnet' },
    plugin: '@walletd/plugin-ton',
    tokens: ['USDT'],
    defaultPort: () => 58081,
    // The toncenter adapter speaks REST: a path per method.
    start: (o) => (require('./localTon') as typeof import('./localTon')).startLocalTon(o),
    fund: (info, request) =>
      (require('./fundThroughAdapter') as typeof import('./fundThroughAdapter')).fundThroughAdapter(info, request, 'rest'),
  },
  {
    name: 'polkadot',
    follows: { chain: 'polkadot', network: 'localnet' },
    plugin: '@walletd/plugin-polkadot',
    tokens: ['USDT'],
    defaultPort: () => 58944,
    start: (o) => (require('./localPolkadot') as typeof import('./localPolkadot')).startLocalPolkadot(o),
    fund: (info, request) => (require('./localPolkadot') as typeof import('./localPolkadot')).fundPolkadotPlayground(info, request),
  },
  {
    name: 'bitcoin',
    follows: { chain: 'bitcoin', network: 'regtest' },
    plugin: '@walletd/plugin-utxo',
    tokens: [],
    defaultPort: () => 58332,
    start: (o) =>
      (require('./localBitcoin') as typeof import('./localBitcoin')).startLocalRegtest({
        chain: 'bitcoin',
        port: o.port,
        datadir: litecoindDir(o.dataDir, 'bitcoin'),
      }),
    fund: (info, request) => (require('./fundRegtest') as typeof import('./fundRegtest')).fundRegtest(info, request),
  },
  {
    name: 'dogecoin',
    follows: { chain: 'dogecoin', network: 'regtest' },
    plugin: '@walletd/plugin-utxo',
    tokens: [],
    defaultPort: () => 58442,
    // A node of its own beside bitcoin's: one node's wallet prints one family's addresses.
    start: (o) =>
      (require('./localBitcoin') as typeof import('./localBitcoin')).startLocalRegtest({
        chain: 'dogecoin',
        port: o.port,
        datadir: litecoindDir(o.dataDir, 'dogecoin'),
      }),
    fund: (info, request) => (require('./fundRegtest') as typeof import('./fundRegtest')).fundRegtest(info, request),
  },
];

/**
 * A regtest node's datadir under the service's data directory, kept across restarts; removing it
 * resets that chain. Bitcoin's keeps the name it had before dogecoin got a node.
 */
export const litecoindDir = (dataDir: string, chain: string) =>
  join(dataDir, 'devchains', chain === 'bitcoin' ? 'litecoind' : `litecoind-${chain}`);

export const localChainModule = (name: string): LocalChainModule | undefined => LOCAL_CHAIN_MODULES.find((m) => m.name === name);
