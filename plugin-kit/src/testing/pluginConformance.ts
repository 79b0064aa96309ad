import assert from 'node:assert/strict';
import { PLUGIN_API_VERSION } from '../contract';
import { openWalletSecret } from '../keys';
import { blockChecks, detectOf, reorgChecks } from './detectionChecks';
import { finalityChecks } from './finalityChecks';
import { type ConformanceSubject, DEPOSIT_CASES, type DepositCase } from './scenarios';
import { type ConformanceSuite, describeConformance } from './suite';

const TEST_MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

/** The cases the subject's scenarios exercise, by their own tags and by what they state. */
export function coveredCases(subject: ConformanceSubject): Set<DepositCase> {
  const covered = new Set<DepositCase>();
  for (const b of subject.blocks) {
    for (const c of b.covers ?? []) covered.add(c);
    if (b.header) covered.add('linked-headers');
    for (const e of b.expected) {
      if (BigInt(e.amount) > 2n ** 53n) covered.add('amount-above-2^53');
      if (e.from !== undefined) covered.add('from');
      if (e.logIndex !== undefined) covered.add('log-index');
    }
  }
  if ((subject.reorgs ?? []).length > 0) covered.add('reorg');
  return covered;
}

/**
 * The deposit side of the contract, checked the same way for every chain (Ledger's shared-bridge
 * idea): registration data, addresses, `detect` on the scenario blocks (every stated field, block
 * headers, failed transactions and foreign tokens credited nothing), reorgs, and `confirm`'s rule.
 */
export function pluginConformance(subject: ConformanceSubject): ConformanceSuite {
  const { plugin } = subject;
  const secret = openWalletSecret(Buffer.from(TEST_MNEMONIC));
  return {
    title: `${plugin.name} conformance`,
    ...(subject.before ? { before: () => (subject.before as () => Promise<void>)() } : {}),
    ...(subject.after ? { after: () => (subject.after as () => Promise<void>)() } : {}),
    checks: [
      {
        name: 'declares the contract version, serves every target, and its detect module exports detect',
        run: () => {
          assert.equal(plugin.apiVersion, PLUGIN_API_VERSION);
          for (const t of subject.targets) {
            const chain = plugin.chains.find((c) => c.chain === t.chain);
            assert.ok(
              chain?.networks.some((n) => n.network === t.network),
              `${plugin.name} does not declare ${t.chain}/${t.network}`,
            );
          }
          assert.equal(typeof detectOf(plugin), 'function');
        },
      },
      {
        name: 'every deposit case is exercised by a scenario, or the subject says why not',
        run: () => {
          const covered = coveredCases(subject);
          const explained = subject.notCovered ?? {};
          const missing = DEPOSIT_CASES.filter((c) => !covered.has(c) && !explained[c]);
          assert.deepEqual(missing, [], `no scenario and no reason for: ${missing.join(', ')}`);
          const stale = DEPOSIT_CASES.filter((c) => covered.has(c) && explained[c]);
          assert.deepEqual(stale, [], `declared not covered but exercised: ${stale.join(', ')}`);
        },
      },
      ...finalityChecks(plugin, subject.targets),
      ...subject.targets.map((t) => ({
        name: `${t.chain}/${t.network}: addresses derive deterministically, are distinct, validate, and match in their own form`,
        run: () => {
          const seen = new Set<string>();
          for (let i = 0; i < 5; i++) {
            const a = plugin.deriveAddress(t.chain, t.network, secret, i);
            assert.deepEqual(plugin.deriveAddress(t.chain, t.network, secret, i), a);
            assert.equal(plugin.validateAddress(t.chain, t.network, a.address), true);
            assert.equal(plugin.matchKey(t.chain, t.network, a.address), a.matchKey);
            assert.equal(plugin.matchKey(t.chain, t.network, a.matchKey), a.matchKey);
            assert.equal(plugin.formatAddress(t.chain, t.network, a.matchKey), a.address);
            seen.add(a.matchKey);
          }
          assert.equal(seen.size, 5);
          assert.equal(plugin.validateAddress(t.chain, t.network, 'definitely-not-an-address'), false);
        },
      })),
      ...(subject.vectors ?? []).map((v) => ({
        name: `${v.chain}/${v.network}: derives the known address at index ${v.index}`,
        run: () => {
          assert.equal(plugin.deriveAddress(v.chain, v.network, openWalletSecret(Buffer.from(v.mnemonic)), v.index).address, v.address);
        },
      })),
      ...subject.blocks.flatMap((b) => blockChecks(plugin, b)),
      ...(subject.reorgs ?? []).flatMap((r) => reorgChecks(plugin, r)),
    ],
  };
}

/** `pluginConformance` as jest (or vitest) tests: one `it` per check. */
export function describePluginConformance(subject: ConformanceSubject): void {
  describeConformance(pluginConformance(subject));
}
