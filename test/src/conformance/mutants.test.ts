import { createEvmPlugin } from '@walletd/plugin-evm';
import type { ChainPlugin } from '@walletd/plugin-kit';
import { pluginConformance, runConformance, withdrawalConformance } from '@walletd/plugin-kit/testing';
import { evmSubject, evmWithdrawals } from './evmScenario';

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
  [
    'confirms at depth 0',
    {
      ...real,
      confirm: ({ pending }) =>
        pending.filter((p) => p.blockNumber !== null).map((p) => ({ id: p.id, status: 'confirmed', confirmations: 0 })),
    },
    /nothing is confirmed early/,
  ],
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
