import {
  type Chain,
  type ChainPlugin,
  type DetectContext,
  type TokenDefinition,
  openWalletSecret,
  nativeAsset,
  registerPlugins,
} from '@walletd/core';

/** What a plugin hands the kit: real or recorded blocks with the facts they must yield. */
export interface ConformanceBlock {
  name: string;
  chain: Chain;
  network: string;
  raw: Uint8Array;
  /** Addresses in display form that the company watches. */
  watched: string[];
  tokens?: TokenDefinition[];
  /** Expected transfers: base-unit amounts as decimal strings. */
  expected: { txHash: string; eventIndex: number; to: string; amount: string; assetKey: string }[];
}

export interface ConformanceSubject {
  plugin: ChainPlugin;
  /** The chains/networks to check (each with its own address rules). */
  targets: { chain: Chain; network: string }[];
  blocks: ConformanceBlock[];
  /** Known derivation vectors: a mnemonic's address at an index. */
  vectors?: { chain: Chain; network: string; mnemonic: string; index: number; address: string }[];
}

/**
 * The suite every chain plugin runs (Ledger's shared-bridge idea): the contract's promises,
 * checked the same way for every chain. Call it inside a jest test file.
 */
export function describePluginConformance(subject: ConformanceSubject): void {
  const { plugin } = subject;
  const secret = openWalletSecret(
    Buffer.from('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'),
  );

  describe(`${plugin.name} conformance`, () => {
    it('registers under the contract version it declares', () => {
      const registry = registerPlugins([plugin]);
      for (const t of subject.targets) expect(registry.forChain(t.chain)).toBe(plugin);
      expect(require(plugin.detectModule).detect).toBeInstanceOf(Function);
    });

    it('confirm is pure, never confirms a transfer in no block (reorged out), and counts confirmations from the head', () => {
      const pending = [
        { id: 1, blockNumber: 10n },
        { id: 2, blockNumber: null },
      ];
      const input = { pending, head: 1_000n, finalized: 1_000n, threshold: 1, finality: 'confirmations' as const };
      const first = plugin.confirm(input);
      expect(plugin.confirm(input)).toEqual(first);
      expect(first.map((d) => d.id)).toEqual([1]);
      expect(first[0]?.confirmations).toBe(991);
      expect(plugin.confirm({ ...input, finality: 'finalized' }).some((d) => d.id === 2 && d.status === 'confirmed')).toBe(false);
    });

    for (const t of subject.targets) {
      it(`${t.chain}/${t.network}: addresses derive deterministically, are distinct, validate, and match in their own form`, () => {
        const seen = new Set<string>();
        for (let i = 0; i < 5; i++) {
          const a = plugin.deriveAddress(t.chain, t.network, secret, i);
          expect(plugin.deriveAddress(t.chain, t.network, secret, i)).toEqual(a);
          expect(plugin.validateAddress(t.chain, t.network, a.address)).toBe(true);
          expect(plugin.matchKey(t.chain, t.network, a.address)).toBe(a.matchKey);
          expect(plugin.matchKey(t.chain, t.network, a.matchKey)).toBe(a.matchKey);
          expect(plugin.formatAddress(t.chain, t.network, a.matchKey)).toBe(a.address);
          seen.add(a.matchKey);
        }
        expect(seen.size).toBe(5);
        expect(plugin.validateAddress(t.chain, t.network, 'definitely-not-an-address')).toBe(false);
      });
    }

    for (const v of subject.vectors ?? []) {
      it(`${v.chain}/${v.network}: derives the known address at index ${v.index}`, () => {
        expect(plugin.deriveAddress(v.chain, v.network, openWalletSecret(Buffer.from(v.mnemonic)), v.index).address).toBe(v.address);
      });
    }

    for (const b of subject.blocks) {
      const ctx = (): DetectContext => {
        const keys = new Set(b.watched.map((a) => plugin.matchKey(b.chain, b.network, a)));
        return {
          chain: b.chain,
          network: b.network,
          native: nativeAsset(b.chain, b.network),
          tokens: new Map((b.tokens ?? []).map((tk) => [tk.matchKey, tk])),
          watched: { has: (k) => keys.has(k) },
        };
      };
      it(`${b.name}: detect finds exactly the expected transfers with exact amounts`, () => {
        const got = (
          require(plugin.detectModule).detect as (
            raw: Uint8Array,
            c: DetectContext,
          ) => { transfers: { txHash: string; eventIndex: number; toKey: string; amount: bigint; assetKey: string }[] }
        )(b.raw, ctx());
        expect(
          got.transfers.map((x) => ({
            txHash: x.txHash,
            eventIndex: x.eventIndex,
            to: x.toKey,
            amount: x.amount.toString(),
            assetKey: x.assetKey,
          })),
        ).toEqual(b.expected.map((e) => ({ ...e, to: plugin.matchKey(b.chain, b.network, e.to) })));
      });
      it(`${b.name}: detect is pure (same bytes, same answer, input untouched) and keys are unique`, () => {
        const detect = require(plugin.detectModule).detect as (
          raw: Uint8Array,
          c: DetectContext,
        ) => { transfers: { txHash: string; eventIndex: number }[] };
        const before = Buffer.from(b.raw);
        const first = detect(b.raw, ctx());
        expect(detect(b.raw, ctx())).toEqual(first);
        expect(Buffer.from(b.raw).equals(before)).toBe(true);
        const keys = first.transfers.map((x) => `${x.txHash}:${x.eventIndex}`);
        expect(new Set(keys).size).toBe(keys.length);
        const nobody = detect(b.raw, { ...ctx(), watched: { has: () => false } });
        expect(nobody.transfers).toEqual([]);
      });
    }
  });
}
