import assert from 'node:assert/strict';
import { isPublicError } from '../errors';
import type { ChainPlugin, ChainReader, UnsignedWithdrawal, WithdrawalIntent, WithdrawalOutput, WithdrawalVerbs } from '../contract';
import { openWalletSecret } from '../keys';
import { type ConformanceCheck, type ConformanceSuite, describeConformance } from './suite';
import { type ConformanceNode, WITHDRAWAL_CASES, type WithdrawalCase, type WithdrawalConformance } from './withdrawalScenarios';

export * from './withdrawalScenarios';

/**
 * The cases a subject's node hooks and declarations unlock. A hold the node offers for another case
 * (`expired`) does not make `pending` a promise where the subject says why it is not one.
 */
function covered(w: WithdrawalConformance, node: ConformanceNode): Set<WithdrawalCase> {
  const c = new Set<WithdrawalCase>();
  if (!w.notCovered?.['not-the-intent']) c.add('not-the-intent');
  if (!w.notCovered?.['exact-fee'] && w.asset.contractAddress === null) c.add('exact-fee');
  if (w.token) c.add('token-without-transfer');
  if (node.failOnChain) c.add('failed_on_chain');
  if (node.hold && node.release && !w.notCovered?.pending) c.add('pending');
  if (c.has('pending') && node.drop) c.add('dropped');
  if (node.hold && node.release && node.expire) c.add('expired');
  return c;
}

/**
 * Contract v2's withdrawal promises on the plugin's own node or engine: build → sign →
 * checkSigned accepts its own signature and refuses a changed amount, recipient, memo or tag →
 * broadcast (twice: the service re-sends the same bytes after a crash) → verify confirmed with the
 * exact fee; and `verify` never confirms what did not pay the intent (another transaction, a
 * failed one, one still in the pool, dropped from it or expired unmined, a token payment without
 * its transfer).
 * The source is address 0 of the BIP-39 test mnemonic, so a chain team can restore it anywhere.
 */
export function withdrawalConformance(plugin: ChainPlugin, w: WithdrawalConformance): ConformanceSuite {
  const secret = openWalletSecret(
    Buffer.from('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'),
  );
  const capabilities = plugin.chains.find((c) => c.chain === w.chain)?.capabilities;
  const source = plugin.deriveAddress(w.chain, w.network, secret, 0).address;
  let node: ConformanceNode;
  let reader: ChainReader;
  const v = (): WithdrawalVerbs => {
    assert.ok(plugin.withdrawals, `${plugin.name} declares no withdrawal verbs`);
    return plugin.withdrawals;
  };
  const intent = (outputs: WithdrawalOutput[]): WithdrawalIntent => ({
    chain: w.chain,
    network: w.network,
    asset: w.asset,
    outputs,
    sources: [source],
  });
  const build = (outputs: WithdrawalOutput[]) => v().build(intent(outputs), reader);
  const refuses = (prepared: UnsignedWithdrawal, raw: string) => {
    assert.throws(
      () => v().checkSigned(prepared, raw, prepared),
      (e) => isPublicError(e),
      'checkSigned accepted a transaction that does not pay the intent',
    );
  };
  const balance = async () => (await reader.getBalance(source, w.asset)).total;
  /** Built, signed and broadcast; settled unless the node holds it. */
  const send = async (outputs: WithdrawalOutput[], opts: { settle: boolean; beforeBroadcast?: () => Promise<void> }) => {
    const prepared = await build(outputs);
    const signed = await v().sign(prepared, secret, [0]);
    await opts.beforeBroadcast?.();
    await v().broadcast(signed, reader);
    if (opts.settle) await node.settle(signed.txHash);
    return { prepared, signed };
  };
  const notConfirmed = (verdict: { status: string }, what: string) =>
    assert.notEqual(verdict.status, 'confirmed', `verify confirmed ${what}`);
  /** A case's check: skipped (passes) where the subject says why it cannot run, failed where it says nothing. */
  const when = (c: WithdrawalCase, check: ConformanceCheck): ConformanceCheck[] => [
    {
      name: check.name,
      run: async () => {
        if (covered(w, node).has(c)) return check.run();
        assert.ok(w.notCovered?.[c], `${c}: the node offers no hook for it and the subject gives no reason`);
      },
    },
  ];

  const checks: ConformanceCheck[] = [
    {
      name: 'declares withdrawals and every capability; every verdict case is exercised or explained',
      run: () => {
        v();
        for (const k of ['memo', 'destinationTag', 'multipleOutputs', 'feePayer'] as const)
          assert.equal(typeof capabilities?.[k], 'boolean', `capability ${k}`);
        const missing = WITHDRAWAL_CASES.filter((c) => !covered(w, node).has(c) && !w.notCovered?.[c]);
        assert.deepEqual(missing, [], `no scenario and no reason for: ${missing.join(', ')}`);
      },
    },
    {
      name: 'signs what it built, accepts its own signature, refuses a changed amount or recipient, broadcasts twice, verifies confirmed with the exact fee',
      run: async () => {
        const [to, other] = w.recipients;
        const before = await balance();
        const prepared = await build([{ to, amount: w.amount }]);
        assert.ok(prepared.sourceAddresses.includes(source), 'the source is not among sourceAddresses');
        assert.ok(prepared.fee > 0n, 'fee bound is not positive');
        const signed = await v().sign(prepared, secret, [0]);
        assert.match(signed.txHash, /\S/);
        assert.equal(v().checkSigned(prepared, signed.raw, prepared).signed.txHash, signed.txHash);
        refuses(await build([{ to, amount: w.amount + 1n }]), signed.raw);
        refuses(await build([{ to: other, amount: w.amount }]), signed.raw);
        await v().broadcast(signed, reader);
        await v().broadcast(signed, reader);
        await node.settle(signed.txHash);
        const verdict = await v().verify(prepared, signed.txHash, reader);
        assert.equal(verdict.status, 'confirmed');
        assert.ok(verdict.confirmations >= 1, `confirmed with ${verdict.confirmations} confirmations`);
        if (covered(w, node).has('exact-fee')) {
          assert.equal(typeof verdict.fee, 'bigint', 'a confirmed verdict without the fee paid');
          assert.equal(
            before - (await balance()),
            w.amount + (verdict.fee as bigint),
            'the source paid another fee than the verdict reports',
          );
        }
      },
    },
    {
      name: 'mined but not the intent: verify answers pending (neither confirmed nor rejected) for another transaction (other recipient, other amount)',
      run: async () => {
        if (w.notCovered?.['not-the-intent']) return;
        const prepared = await build([{ to: w.recipients[0], amount: w.amount }]);
        const { signed } = await send([{ to: w.recipients[1], amount: w.amount + 1n }], { settle: true });
        const verdict = await v().verify(prepared, signed.txHash, reader);
        notConfirmed(verdict, 'another transaction as this withdrawal');
        // Contract (WithdrawalVerbs.verify): what the plugin does not recognise keeps its funds
        // reserved and stays in view; `rejected` would release a reservation that may be spent.
        assert.equal(
          verdict.status,
          'pending',
          `verify answered ${verdict.status} ${verdict.reason ?? ''} for a mined transaction that is not the intent`,
        );
      },
    },
    ...when('token-without-transfer', {
      name: 'a token withdrawal whose transaction carries no matching transfer is not confirmed',
      run: async () => {
        const { prepared, signed } = await send([{ to: w.recipients[0], amount: w.amount }], { settle: true });
        const asToken = { ...prepared, intent: { ...prepared.intent, asset: w.token as NonNullable<typeof w.token> } };
        notConfirmed(await v().verify(asToken, signed.txHash, reader), 'a token withdrawal paid by no token transfer');
      },
    }),
    ...when('failed_on_chain', {
      name: 'a transaction included but failed is rejected as failed_on_chain, with the exact fee it cost',
      run: async () => {
        const fail = node.failOnChain as NonNullable<ConformanceNode['failOnChain']>;
        const before = await balance();
        const { prepared, signed } = await send([{ to: fail.recipient, amount: w.amount }], {
          settle: true,
          beforeBroadcast: () => fail.arm(),
        });
        const verdict = await v().verify(prepared, signed.txHash, reader);
        assert.deepEqual([verdict.status, verdict.reason], ['rejected', 'failed_on_chain']);
        assert.equal(before - (await balance()), verdict.fee, 'the failed transaction cost another fee than the verdict reports');
      },
    }),
    ...when('pending', {
      name: 'a transaction in the pool, not in a block, is pending (then dropped from the pool: not confirmed, not paid)',
      run: async () => {
        await (node.hold as () => Promise<void>)();
        try {
          const { prepared, signed } = await send([{ to: w.recipients[0], amount: w.amount }], { settle: false });
          assert.equal((await v().verify(prepared, signed.txHash, reader)).status, 'pending');
          if (node.drop) {
            await node.drop(signed.txHash);
            const verdict = await v().verify(prepared, signed.txHash, reader);
            assert.ok(
              verdict.status === 'missing' || (verdict.status === 'rejected' && verdict.reason === 'mempool_dropped'),
              `a dropped transaction reads as ${verdict.status}${verdict.reason ? `/${verdict.reason}` : ''}`,
            );
          }
        } finally {
          await (node.release as () => Promise<void>)();
        }
      },
    }),
    ...when('expired', {
      name: 'a transaction that expired unmined is rejected as expired (never confirmed, never left pending)',
      run: async () => {
        await (node.hold as () => Promise<void>)();
        try {
          const { prepared, signed } = await send([{ to: w.recipients[0], amount: w.amount }], { settle: false });
          await (node.expire as NonNullable<ConformanceNode['expire']>)(signed.txHash);
          const verdict = await v().verify(prepared, signed.txHash, reader);
          assert.deepEqual([verdict.status, verdict.reason], ['rejected', 'expired'], 'an expired transaction');
        } finally {
          await (node.release as () => Promise<void>)();
        }
      },
    }),
    ...(capabilities?.memo
      ? [
          {
            name: 'carries the memo it was given: a changed or missing memo is refused',
            run: async () => {
              const prepared = await build([{ to: w.recipients[0], amount: w.amount, memo: 'invoice 1' }]);
              const signed = await v().sign(prepared, secret, [0]);
              refuses(await build([{ to: w.recipients[0], amount: w.amount, memo: 'invoice 2' }]), signed.raw);
              refuses(await build([{ to: w.recipients[0], amount: w.amount }]), signed.raw);
            },
          },
        ]
      : []),
    ...(capabilities?.destinationTag
      ? [
          {
            name: 'carries the destination tag it was given: a changed or missing tag is refused',
            run: async () => {
              const prepared = await build([{ to: w.recipients[0], amount: w.amount, destinationTag: 7 }]);
              const signed = await v().sign(prepared, secret, [0]);
              refuses(await build([{ to: w.recipients[0], amount: w.amount, destinationTag: 8 }]), signed.raw);
              refuses(await build([{ to: w.recipients[0], amount: w.amount }]), signed.raw);
            },
          },
        ]
      : []),
    ...(capabilities?.multipleOutputs
      ? [
          {
            name: 'pays several recipients in one transaction when it declares multipleOutputs',
            run: async () => {
              const outputs = [
                { to: w.recipients[0], amount: w.amount },
                { to: w.recipients[1], amount: w.amount + 1n },
              ];
              const { prepared, signed } = await send(outputs, { settle: true });
              refuses(await build([outputs[0] as WithdrawalOutput]), signed.raw);
              assert.equal((await v().verify(prepared, signed.txHash, reader)).status, 'confirmed');
            },
          },
        ]
      : []),
  ];

  return {
    title: `${plugin.name} ${w.chain}/${w.network} withdrawal conformance`,
    before: async () => {
      node = await w.start();
      reader = plugin.createReader(w.chain, w.network, { rpcUrl: node.rpcUrl });
      await node.fund(source);
    },
    after: async () => {
      await reader?.close?.();
      await node?.stop();
    },
    checks,
  };
}

/** `withdrawalConformance` as jest (or vitest) tests. */
export function describeWithdrawalConformance(plugin: ChainPlugin, w: WithdrawalConformance): void {
  describeConformance(withdrawalConformance(plugin, w));
}
