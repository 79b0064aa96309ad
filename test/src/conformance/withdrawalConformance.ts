import {
  type AssetRef,
  BaseError,
  type Chain,
  type ChainPlugin,
  type ChainReader,
  type UnsignedWithdrawal,
  type WithdrawalIntent,
  type WithdrawalOutput,
  openWalletSecret,
} from '@walletd/core';

/** The plugin's own node or engine, started for the kit. */
export interface ConformanceNode {
  rpcUrl: string;
  /** Gives `address` (walletd's display form) enough of the native asset to pay `amount` several times. */
  fund(address: string): Promise<void>;
  /** Makes a broadcast transaction final enough for `verify` to answer confirmed (mine, wait for the receipt). */
  settle(txHash: string): Promise<void>;
  stop(): Promise<void>;
}

export interface WithdrawalConformance {
  chain: Chain;
  network: string;
  asset: AssetRef;
  /** Two distinct recipients in walletd's display form. */
  recipients: [string, string];
  amount: bigint;
  start(): Promise<ConformanceNode>;
}

/**
 * Contract v2's withdrawal promises, checked the same way for every plugin on its own node or
 * engine: build → sign → checkSigned accepts the plugin's own signature and refuses a changed
 * amount, recipient, memo or tag → broadcast (twice: the service re-sends the same bytes after a
 * crash) → verify confirmed; every declared capability honoured. The source is address 0 of a
 * fixed mnemonic, so a chain team can restore it in standard tools.
 */
export function describeWithdrawalConformance(plugin: ChainPlugin, w: WithdrawalConformance): void {
  const secret = openWalletSecret(
    Buffer.from('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'),
  );
  const capabilities = plugin.chains.find((c) => c.chain === w.chain)?.capabilities;
  const verbs = plugin.withdrawals;

  describe(`${plugin.name} ${w.chain}/${w.network} withdrawal conformance`, () => {
    let node: ConformanceNode;
    let reader: ChainReader;
    const source = plugin.deriveAddress(w.chain, w.network, secret, 0).address;
    const intent = (outputs: WithdrawalOutput[]): WithdrawalIntent => ({
      chain: w.chain,
      network: w.network,
      asset: w.asset,
      outputs,
      sources: [source],
    });
    const build = (outputs: WithdrawalOutput[]) => (verbs as NonNullable<typeof verbs>).build(intent(outputs), reader);
    /** checkSigned's refusal: a typed error, never a plain one or a silent acceptance. */
    const refuses = (prepared: UnsignedWithdrawal, raw: string) => {
      let caught: unknown;
      try {
        (verbs as NonNullable<typeof verbs>).checkSigned(prepared, raw, prepared);
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(BaseError);
    };

    beforeAll(async () => {
      node = await w.start();
      reader = plugin.createReader(w.chain, w.network, { rpcUrl: node.rpcUrl });
      await node.fund(source);
    });
    afterAll(async () => {
      await reader?.close?.();
      await node?.stop();
    });

    it('declares withdrawals and every capability', () => {
      expect(verbs).toBeDefined();
      expect(capabilities).toEqual({
        memo: expect.any(Boolean),
        destinationTag: expect.any(Boolean),
        multipleOutputs: expect.any(Boolean),
        feePayer: expect.any(Boolean),
      });
    });

    it('signs what it built, accepts its own signature, refuses a changed amount or recipient, broadcasts twice and verifies confirmed', async () => {
      const v = verbs as NonNullable<typeof verbs>;
      const [to, other] = w.recipients;
      const prepared = await build([{ to, amount: w.amount }]);
      expect(prepared.sourceAddresses).toContain(source);
      expect(prepared.fee).toBeGreaterThan(0n);
      const signed = await v.sign(prepared, secret, [0]);
      expect(signed.txHash).toMatch(/\S/);
      expect(v.checkSigned(prepared, signed.raw, prepared).signed.txHash).toBe(signed.txHash);
      refuses(await build([{ to, amount: w.amount + 1n }]), signed.raw);
      refuses(await build([{ to: other, amount: w.amount }]), signed.raw);

      await v.broadcast(signed, reader);
      await v.broadcast(signed, reader);
      await node.settle(signed.txHash);
      const verdict = await v.verify(prepared, signed.txHash, reader);
      expect(verdict).toMatchObject({ status: 'confirmed' });
      expect(verdict.confirmations).toBeGreaterThanOrEqual(1);
    });

    // Only what the plugin declares is checked: the API refuses the rest before a plugin sees it.
    if (capabilities?.memo)
      it('carries the memo it was given: a changed memo is refused', async () => {
        const v = verbs as NonNullable<typeof verbs>;
        const prepared = await build([{ to: w.recipients[0], amount: w.amount, memo: 'invoice 1' }]);
        const signed = await v.sign(prepared, secret, [0]);
        refuses(await build([{ to: w.recipients[0], amount: w.amount, memo: 'invoice 2' }]), signed.raw);
        refuses(await build([{ to: w.recipients[0], amount: w.amount }]), signed.raw);
      });

    // Only what the plugin declares is checked: the API refuses the rest before a plugin sees it.
    if (capabilities?.destinationTag)
      it('carries the destination tag it was given: a changed tag is refused', async () => {
        const v = verbs as NonNullable<typeof verbs>;
        const prepared = await build([{ to: w.recipients[0], amount: w.amount, destinationTag: 7 }]);
        const signed = await v.sign(prepared, secret, [0]);
        refuses(await build([{ to: w.recipients[0], amount: w.amount, destinationTag: 8 }]), signed.raw);
        refuses(await build([{ to: w.recipients[0], amount: w.amount }]), signed.raw);
      });

    // Only what the plugin declares is checked: the API refuses the rest before a plugin sees it.
    if (capabilities?.multipleOutputs)
      it('pays several recipients in one transaction when it declares multipleOutputs', async () => {
        const v = verbs as NonNullable<typeof verbs>;
        const outputs = [
          { to: w.recipients[0], amount: w.amount },
          { to: w.recipients[1], amount: w.amount + 1n },
        ];
        const prepared = await build(outputs);
        const signed = await v.sign(prepared, secret, [0]);
        refuses(await build([outputs[0] as WithdrawalOutput]), signed.raw);
        await v.broadcast(signed, reader);
        await node.settle(signed.txHash);
        expect(await v.verify(prepared, signed.txHash, reader)).toMatchObject({ status: 'confirmed' });
      });
  });
}
