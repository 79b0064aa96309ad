import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DetectContext, type TokenDefinition, chainTableOf } from '@walletd/plugin-kit';
import { createSolanaPlugin } from './createSolanaPlugin';

// The native asset as this plugin declares it (no list of chains outside the plugins).
const nativeAsset = (chain: string, network: string) => chainTableOf(createSolanaPlugin().chains).nativeAsset(chain, network);
import { TOKEN_EVENT_OFFSET, detect } from './detect';
import { TOKEN_2022_PROGRAM } from './programs';

const FIXTURES = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'solana');
const fixture = (name: string) => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'));
const enc = (o: unknown) => new TextEncoder().encode(JSON.stringify(o));

const block = fixture('sol-mainnet-block-jsonparsed-147078735.json');
const facts = fixture('sol-mainnet-block-jsonparsed-147078735.expected.json').expected;
const solTx = fixture('sol-devnet-native-sol-transfer-2qfNzGs1.json');
const usdcTx = fixture('sol-devnet-spl-usdc-transfer-3Zj5XkvE.json');
const SLOT = 147078735;

const WSOL: TokenDefinition = {
  key: 'solana:mainnet:So11111111111111111111111111111111111111112',
  symbol: 'wSOL',
  decimals: 9,
  contractAddress: 'So11111111111111111111111111111111111111112',
  matchKey: 'So11111111111111111111111111111111111111112',
};
const DEVNET_USDC_MINT = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU';
const USDC: TokenDefinition = {
  key: `solana:devnet:${DEVNET_USDC_MINT}`,
  symbol: 'USDC',
  decimals: 6,
  contractAddress: DEVNET_USDC_MINT,
  matchKey: DEVNET_USDC_MINT,
};

function ctx(network: string, watched: string[], tokens: TokenDefinition[] = []): DetectContext {
  const set = new Set(watched);
  return {
    chain: 'solana',
    network,
    native: nativeAsset('solana', network),
    tokens: new Map(tokens.map((t) => [t.matchKey, t])),
    watched: { has: (k) => set.has(k) },
  };
}

/** A recorded getTransaction answer wrapped as the only transaction of a block (the block's own fields are placeholders). */
function wrap(tx: { slot: number; transaction: unknown; meta: unknown; version?: unknown }, slot = tx.slot) {
  return {
    slot,
    block: {
      jsonrpc: '2.0',
      id: 1,
      result: {
        blockhash: `placeholder-hash-${slot}`,
        previousBlockhash: `placeholder-hash-${slot - 1}`,
        parentSlot: slot - 1,
        blockHeight: null,
        transactions: [{ transaction: tx.transaction, meta: tx.meta, version: tx.version }],
      },
    },
  };
}
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v));

describe('Solana detect on the recorded mainnet block 147078735 (jsonParsed, 25 transactions)', () => {
  const raw = enc({ slot: SLOT, block: block.data });
  const txs = block.data.result.transactions as { transaction: { signatures: string[]; message: { accountKeys: { pubkey: string }[] } } }[];

  it('reads the block: slot, hash, parent, and the 25 signatures in order with their fees and success', () => {
    const r = detect(raw, ctx('mainnet', []));
    expect(r.block).toEqual({ number: BigInt(SLOT), hash: facts.blockhash, parentHash: facts.previousBlockhash });
    expect(block.data.result.parentSlot).toBe(facts.parentSlot);
    expect(txs.map((t) => t.transaction.signatures[0])).toEqual(facts.transactions.map((t: { signature: string }) => t.signature));
    expect(facts.txCount).toBe(25);
    const metas = (block.data.result.transactions as { meta: { fee: number; err: unknown } }[]).map((t) => ({
      fee: String(t.meta.fee),
      success: t.meta.err === null,
    }));
    expect(metas).toEqual(
      facts.transactions.map((t: { feeLamports: string; success: boolean }) => ({ fee: t.feeLamports, success: t.success })),
    );
  });

  it('credits exactly the token accounts whose wSOL rose, by the expected deltas, to their owner, and nothing else', () => {
    type Delta = { accountIndex: number; owner: string; mint: string; deltaBaseUnits: string };
    const rises: { txHash: string; account: string; owner: string; amount: string; index: number }[] = [];
    const accounts = new Set<string>();
    const owners = new Set<string>();
    facts.transactions.forEach((t: { signature: string; tokenBalanceDeltas: Delta[] }, i: number) => {
      for (const d of t.tokenBalanceDeltas) {
        const account = txs[i]?.transaction.message.accountKeys[d.accountIndex]?.pubkey as string;
        accounts.add(account);
        owners.add(d.owner);
        if (BigInt(d.deltaBaseUnits) > 0n)
          rises.push({ txHash: t.signature, account, owner: d.owner, amount: d.deltaBaseUnits, index: d.accountIndex });
      }
    });
    // 8 rises (tx 18 has two: its owner's two wSOL accounts; the service watches one per owner and mint, the ATA).
    expect(rises.length).toBe(8);
    const r = detect(raw, ctx('mainnet', [...accounts, ...owners], [WSOL]));
    expect(
      r.transfers.map((t) => ({ txHash: t.txHash, account: t.toKey, owner: t.extra?.owner, amount: t.amount.toString(), e: t.eventIndex })),
    ).toEqual(
      rises.map((x) => ({ txHash: x.txHash, account: x.account, owner: x.owner, amount: x.amount, e: TOKEN_EVENT_OFFSET + x.index })),
    );
    expect(r.transfers.every((t) => t.assetKey === WSOL.key && t.eventType === 'spl_transfer')).toBe(true);
    // wSOL not allow-listed: nothing, although the same accounts are watched.
    expect(detect(raw, ctx('mainnet', [...accounts, ...owners])).transfers).toEqual([]);
    // The owner watched but not the token accounts (they are not its registered ones): nothing.
    expect(detect(raw, ctx('mainnet', [...owners], [WSOL])).transfers).toEqual([]);
    // A token account watched whose owner is not a deposit address: nothing.
    expect(detect(raw, ctx('mainnet', [...accounts], [WSOL])).transfers).toEqual([]);
  });

  it('credits no SOL in the block to a fee payer (every lamport change there is a fee or a token account)', () => {
    const payers = txs.map((t) => t.transaction.message.accountKeys[0]?.pubkey as string);
    expect(detect(raw, ctx('mainnet', payers)).transfers).toEqual([]);
  });
});

describe('Solana detect on recorded devnet transactions', () => {
  it('a SOL transfer: 100000000 lamports to the recipient, eventIndex = its account index', () => {
    const e = solTx.expected;
    const r = detect(enc(wrap(solTx.data.result)), ctx('devnet', [e.transfer.to, e.feePayer]));
    expect(r.transfers).toEqual([
      {
        txHash: e.signature,
        eventIndex: 1,
        from: e.feePayer,
        fromKey: e.feePayer,
        to: e.transfer.to,
        toKey: e.transfer.to,
        assetKey: 'solana:devnet:sol',
        amount: 100000000n,
        eventType: 'sol_transfer',
      },
    ]);
  });

  it('a USDC transfer: 10000 to the owner BXT1K8kz… through its token account 644PJ6UW…', () => {
    const e = usdcTx.expected;
    const owner = 'BXT1K8kzYXWMi6ihg7m9UqiHW4iJbJ69zumELHE9oBLe';
    const account = '644PJ6UW8e4gQpjKdBVd4MCYasWjSECKjqd2qzdeAJY6';
    expect(e.tokenBalanceDeltas[0]).toMatchObject({ owner, deltaBaseUnits: '10000' });
    const r = detect(enc(wrap(usdcTx.data.result)), ctx('devnet', [owner, account], [USDC]));
    expect(r.transfers).toEqual([
      {
        txHash: e.signature,
        eventIndex: TOKEN_EVENT_OFFSET + 1,
        from: 'BLw3RweJmfbTapJRgnPRvd962YDjFYAnVGd1p5hmZ5tP',
        fromKey: 'BLw3RweJmfbTapJRgnPRvd962YDjFYAnVGd1p5hmZ5tP',
        to: account,
        toKey: account,
        assetKey: USDC.key,
        amount: 10000n,
        eventType: 'spl_transfer',
        extra: { owner, mint: DEVNET_USDC_MINT },
      },
    ]);
    // The token account's lamports never read as SOL, even when they change.
    const rent = clone(usdcTx.data.result);
    rent.meta.preBalances[1] = 0;
    expect(detect(enc(wrap(rent)), ctx('devnet', [owner, account])).transfers).toEqual([]);
  });
});

describe('Solana detect: adversarial blocks', () => {
  const owner = 'BXT1K8kzYXWMi6ihg7m9UqiHW4iJbJ69zumELHE9oBLe';
  const account = '644PJ6UW8e4gQpjKdBVd4MCYasWjSECKjqd2qzdeAJY6';
  const watched = [owner, account, solTx.expected.transfer.to];

  it('a failed transaction credits nothing, whatever its balance arrays say', () => {
    for (const tx of [solTx.data.result, usdcTx.data.result]) {
      const failed = clone(tx);
      failed.meta.err = { InstructionError: [0, { Custom: 1 }] };
      expect(detect(enc(wrap(failed)), ctx('devnet', watched, [USDC])).transfers).toEqual([]);
    }
  });

  it('a mint that is not allow-listed credits nothing at the owner’s token account', () => {
    const other = clone(usdcTx.data.result);
    for (const b of [...other.meta.preTokenBalances, ...other.meta.postTokenBalances])
      b.mint = 'So11111111111111111111111111111111111111112';
    expect(detect(enc(wrap(other)), ctx('devnet', watched, [USDC])).transfers).toEqual([]);
  });

  it('a token account owned by someone else credits nothing, even if watched; a mint under another program neither', () => {
    const foreign = clone(usdcTx.data.result);
    for (const b of [...foreign.meta.preTokenBalances, ...foreign.meta.postTokenBalances])
      if (b.accountIndex === 1) b.owner = 'BLw3RweJmfbTapJRgnPRvd962YDjFYAnVGd1p5hmZ5tP';
    expect(detect(enc(wrap(foreign)), ctx('devnet', watched, [USDC])).transfers).toEqual([]);
    // An account claiming the allow-listed mint under Token-2022 (a mint address is program-scoped).
    const t22 = clone(usdcTx.data.result);
    for (const b of [...t22.meta.preTokenBalances, ...t22.meta.postTokenBalances]) b.programId = TOKEN_2022_PROGRAM;
    expect(detect(enc(wrap(t22)), ctx('devnet', watched, [USDC])).transfers).toEqual([]);
    // Listed with its program, it is credited.
    const listed = { ...USDC, contractAddress: `token-2022:${DEVNET_USDC_MINT}` };
    expect(detect(enc(wrap(t22)), ctx('devnet', watched, [listed])).transfers.map((t) => t.amount)).toEqual([10000n]);
  });

  it('lamports beyond 2^53 are exact (lossless re-parse), and token amounts beyond 2^64 too', () => {
    const rich = clone(solTx.data.result);
    const text = JSON.stringify(wrap(rich))
      .replace('"preBalances":[3383870040,0,1]', '"preBalances":[3383870040,9007199254740993,1]')
      .replace('"postBalances":[3283865040,100000000,1]', '"postBalances":[3283865040,9007199354740993,1]');
    expect(text).toContain('9007199354740993');
    const r = detect(new TextEncoder().encode(text), ctx('devnet', watched));
    expect(r.transfers.map((t) => t.amount)).toEqual([100000000n]);
    // Two balances a double reads as equal (2^53 and 2^53 + 1) are still a deposit of 1 lamport.
    const equalDoubles = JSON.stringify(wrap(rich))
      .replace('"preBalances":[3383870040,0,1]', '"preBalances":[3383870040,9007199254740992,1]')
      .replace('"postBalances":[3283865040,100000000,1]', '"postBalances":[3283865040,9007199254740993,1]');
    expect(detect(new TextEncoder().encode(equalDoubles), ctx('devnet', watched)).transfers.map((t) => t.amount)).toEqual([1n]);
    // An unwatched account beyond 2^53 does not matter.
    expect(detect(new TextEncoder().encode(equalDoubles), ctx('devnet', [owner])).transfers).toEqual([]);
    const big = clone(usdcTx.data.result);
    big.meta.postTokenBalances[0].uiTokenAmount.amount = '18446744073709551616060000';
    big.meta.preTokenBalances[0].uiTokenAmount.amount = '60000';
    expect(detect(enc(wrap(big)), ctx('devnet', watched, [USDC])).transfers.map((t) => t.amount)).toEqual([18446744073709551616000000n]);
  });

  it('reads v0 transactions with lookup-table accounts (json encoding: loadedAddresses after the message keys)', () => {
    const v0 = clone(usdcTx.data.result);
    // The recipient's token account loaded from a table instead of named in the message.
    v0.transaction.message.accountKeys = v0.transaction.message.accountKeys.filter((k: string) => k !== account);
    v0.meta.loadedAddresses = { writable: [account], readonly: [] };
    const moved = (list: { accountIndex: number }[]) => {
      for (const b of list) b.accountIndex = b.accountIndex === 1 ? 3 : b.accountIndex === 2 ? 1 : b.accountIndex;
    };
    moved(v0.meta.preTokenBalances);
    moved(v0.meta.postTokenBalances);
    const pre = v0.meta.preBalances;
    const post = v0.meta.postBalances;
    v0.meta.preBalances = [pre[0], pre[2], pre[3], pre[1]];
    v0.meta.postBalances = [post[0], post[2], post[3], post[1]];
    const r = detect(enc(wrap(v0)), ctx('devnet', watched, [USDC]));
    expect(r.transfers.map((t) => [t.toKey, t.amount, t.eventIndex])).toEqual([[account, 10000n, TOKEN_EVENT_OFFSET + 3]]);
  });

  it('keeps eventIndex when the transaction lands in another block, and is pure', () => {
    const a = detect(enc(wrap(usdcTx.data.result, 100)), ctx('devnet', watched, [USDC]));
    const raw = enc(wrap(usdcTx.data.result, 250));
    const copy = Uint8Array.from(raw);
    const b = detect(raw, ctx('devnet', watched, [USDC]));
    expect(b.transfers).toEqual(a.transfers);
    expect(b.block.number).toBe(250n);
    expect(detect(raw, ctx('devnet', watched, [USDC]))).toEqual(b);
    expect(Buffer.from(raw).equals(Buffer.from(copy))).toBe(true);
  });

  it('refuses a node error instead of reading it as an empty block', () => {
    expect(() =>
      detect(
        enc({ slot: 5, block: { jsonrpc: '2.0', id: 1, error: { code: -32004, message: 'Block not available' } } }),
        ctx('devnet', []),
      ),
    ).toThrow(/Block not available/);
  });
});
