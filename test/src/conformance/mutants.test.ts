import { createEvmPlugin } from '@walletd/plugin-evm';
import type { ChainPlugin } from '@walletd/plugin-kit';
import {
  type ConformanceSubject,
  type WithdrawalConformance,
  pluginConformance,
  runConformance,
  withdrawalConformance,
} from '@walletd/plugin-kit/testing';
import { evmSubject, evmWithdrawals } from '../../../plugins/evm/test/evmScenario';
import { REAL } from './mutants/families';
import { keepsReorgedCredit } from './mutants/keepsReorgedCredit';
import { polkadotSubject } from '../../../plugins/polkadot/test/polkadotScenario';
import { solanaSubject } from '../../../plugins/solana/test/solanaScenario';
import { tonSubject } from '../../../plugins/ton/test/tonScenario';
import { tronSubject, tronWithdrawals } from '../../../plugins/tron/test/tronScenario';
import { utxoSubject } from '../../../plugins/utxo/test/utxoScenario';
import { xrpSubject, xrpWithdrawals } from '../../../plugins/xrp/test/xrpScenario';

/**
 * Issue 31 item 6: the public kit must fail a broken plugin. Each mutant is the real EVM plugin with
 * one promise broken, the way a plugin tried from outside broke them; all of them passed the kit's
 * eight checks before. The kit runs as plain checks (runConformance) so a failure is observed here.
 */
const real = createEvmPlugin();
const withDetect = (file: string): ChainPlugin => ({ ...real, detectModule: require.resolve(`./mutants/${file}`) });
const failedOf = async (plugin: ChainPlugin) => (await runConformance(pluginConformance(evmSubject(plugin)))).filter((r) => !r.passed);

test('the real EVM plugin passes every deposit check', async () => {
  expect(await failedOf(real)).toEqual([]);
});

test.each([
  ['credits reverted transactions', withDetect('creditsReverted'), /reverted \(status 0x0\) credits nothing: detect finds exactly/],
  ['reports a wrong parentHash', withDetect('wrongParent'), /number, hash and parent exactly|link to the ancestor/],
  ['drops from and eventType', withDetect('dropsSender'), /its sender compared.*detect finds exactly/],
  ['credits zero amounts', withDetect('creditsZero'), /Transfer log for 0 \(address poisoning\).*detect finds exactly/],
  [
    'credits a value call inside a reverted frame',
    withDetect('creditsRevertedFrames'),
    /inside a reverted frame caught by try\/catch.*detect finds exactly/,
  ],
  [
    'treats a failed trace as empty',
    withDetect('emptyOnFailedTrace'),
    /its traces answered.*detect refuses the block|fewer transactions.*detect refuses the block/,
  ],
  [
    'confirms at depth 0',
    {
      ...real,
      confirm: ({ pending }) =>
        pending.filter((p) => p.blockNumber !== null).map((p) => ({ id: p.id, status: 'confirmed', confirmations: 0 })),
    },
    /nothing is confirmed early/,
  ],
  ['keeps a deep-reorged credit (confirms a transfer in no block)', keepsReorgedCredit(real), /nothing in no block ever/],
] as [string, ChainPlugin, RegExp][])('a plugin that %s fails the kit, in the check that names it', async (_what, mutant, check) => {
  const failed = await failedOf(mutant);
  expect(failed.length).toBeGreaterThan(0);
  expect(failed.some((f) => check.test(f.name))).toBe(true);
});

test('a plugin whose verify answers confirmed for anything fails the withdrawal checks; the real one passes them', async () => {
  const realResults = await runConformance(withdrawalConformance(real, evmWithdrawals));
  expect(realResults.filter((r) => !r.passed)).toEqual([]);
  const verbs = real.withdrawals as NonNullable<ChainPlugin['withdrawals']>;
  const mutant: ChainPlugin = { ...real, withdrawals: { ...verbs, verify: async () => ({ status: 'confirmed', confirmations: 1 }) } };
  const failed = (await runConformance(withdrawalConformance(mutant, evmWithdrawals))).filter((r) => !r.passed).map((r) => r.name);
  for (const check of [/exact fee/, /not the intent/, /no matching transfer/, /failed_on_chain/, /is pending/]) {
    expect({ check: String(check), caught: failed.some((f) => check.test(f)) }).toEqual({ check: String(check), caught: true });
  }
});

test('a plugin whose verify rejects (failed_on_chain) a mined transaction that is not the intent fails the kit', async () => {
  // XRP and Polkadot answered this before issue 31: it releases the reservation of funds that moved.
  const verbs = real.withdrawals as NonNullable<ChainPlugin['withdrawals']>;
  const mutant: ChainPlugin = {
    ...real,
    withdrawals: {
      ...verbs,
      verify: async (unsigned, txHash, reader, context) => {
        const verdict = await verbs.verify(unsigned, txHash, reader, context);
        return verdict.status === 'pending' && verdict.blockNumber !== undefined
          ? { status: 'rejected', confirmations: 0, blockNumber: verdict.blockNumber, reason: 'failed_on_chain' }
          : verdict;
      },
    },
  };
  const failed = (await runConformance(withdrawalConformance(mutant, evmWithdrawals))).filter((r) => !r.passed).map((r) => r.name);
  expect(failed.filter((f) => /not the intent/.test(f))).toHaveLength(1);
});

/**
 * The same for the other families: each mutant is a real plugin with one promise broken, run
 * against its family's scenario (real or recorded data); each must fail the check that names it.
 */
const families: Record<keyof typeof REAL, (p: ChainPlugin) => ConformanceSubject> = {
  solana: solanaSubject,
  tron: tronSubject,
  xrp: xrpSubject,
  ton: tonSubject,
  utxo: utxoSubject,
  polkadot: polkadotSubject,
};
const failedIn = async (family: keyof typeof REAL, plugin: ChainPlugin) =>
  (await runConformance(pluginConformance(families[family](plugin)))).filter((r) => !r.passed);
const mutantOf = (family: keyof typeof REAL, file: string): ChainPlugin => ({
  ...REAL[family],
  detectModule: require.resolve(`./mutants/${file}`),
});

test.each(Object.keys(families) as (keyof typeof REAL)[])('the real %s plugin passes every deposit check', async (family) => {
  expect(await failedIn(family, REAL[family])).toEqual([]);
});

test.each([
  [
    'solana',
    'credits failed transactions (meta.err ignored)',
    mutantOf('solana', 'solanaCreditsFailed'),
    /2qfNzGs1 as if it had failed.*detect finds exactly/,
  ],
  ['tron', 'credits reverted TRC-20 calls', mutantOf('tron', 'tronCreditsReverted'), /reverted.*detect finds exactly/],
  ['tron', 'credits zero amounts', mutantOf('tron', 'tronCreditsZero'), /Transfer log for 0.*detect finds exactly/],
  [
    'tron',
    'credits rejected internal transactions',
    mutantOf('tron', 'tronCreditsRejected'),
    /internal transaction rejected.*detect finds exactly/,
  ],
  [
    'tron',
    'confirms at depth 0',
    {
      ...REAL.tron,
      confirm: ({ pending }) =>
        pending.filter((p) => p.blockNumber !== null).map((p) => ({ id: p.id, status: 'confirmed', confirmations: 0 })),
    },
    /nothing is confirmed early/,
  ],
  ['utxo', 'keeps a deep-reorged credit (confirms a transfer in no block)', keepsReorgedCredit(REAL.utxo), /nothing in no block ever/],
  ['xrp', 'credits failed (tec) payments', mutantOf('xrp', 'xrpCreditsFailed'), /as if it had failed.*detect finds exactly/],
  ['ton', 'drops the text comment', mutantOf('ton', 'tonDropsComment'), /invoice 77.*detect finds exactly/],
  [
    'utxo',
    'reports the parent hash in wire byte order',
    mutantOf('utxo', 'utxoParentNotReversed'),
    /number, hash and parent exactly|link to the ancestor/,
  ],
  [
    'polkadot',
    'reads amounts through a double',
    mutantOf('polkadot', 'polkadotAmountsAsDoubles'),
    /2\^53 \+ 1 planck.*detect finds exactly/,
  ],
] as [keyof typeof REAL, string, ChainPlugin, RegExp][])(
  'a %s plugin that %s fails the kit, in the check that names it',
  async (family, _what, mutant, check) => {
    const failed = await failedIn(family, mutant);
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.map((f) => f.name).filter((n) => check.test(n)).length).toBeGreaterThan(0);
  },
);

const confirmsAnything = (plugin: ChainPlugin): ChainPlugin => {
  const verbs = plugin.withdrawals as NonNullable<ChainPlugin['withdrawals']>;
  return { ...plugin, withdrawals: { ...verbs, verify: async () => ({ status: 'confirmed', confirmations: 1 }) } };
};
test.each([
  ['tron', REAL.tron, tronWithdrawals('devnet'), [/not the intent/, /no matching transfer/, /is pending/, /expired unmined/]],
  ['xrp', REAL.xrp, xrpWithdrawals, [/not the intent/, /no matching transfer/, /failed_on_chain/, /expired unmined/]],
] as [string, ChainPlugin, WithdrawalConformance, RegExp[]][])(
  'a %s plugin whose verify answers confirmed for anything fails the withdrawal checks; the real one passes them',
  async (_family, plugin, w, checks) => {
    expect((await runConformance(withdrawalConformance(plugin, w))).filter((r) => !r.passed)).toEqual([]);
    const failed = (await runConformance(withdrawalConformance(confirmsAnything(plugin), w))).filter((r) => !r.passed).map((r) => r.name);
    for (const check of checks) {
      expect({ check: String(check), caught: failed.some((f) => check.test(f)) }).toEqual({ check: String(check), caught: true });
    }
  },
);
