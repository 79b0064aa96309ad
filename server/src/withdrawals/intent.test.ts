import { intentHash } from './intent';

/**
 * Idempotency keys already bound stay bound to the same bodies: these hashes were computed by the
 * code before memos moved into the outputs (commit ce04740), for the same normalised intents.
 */
describe('intentHash keeps the form keys were bound to', () => {
  const asset = { key: 'ethereum:devnet:native', symbol: 'ETH', decimals: 18, contractAddress: null };

  it('one recipient, no memo', () => {
    expect(intentHash(7, { asset, outputs: [{ to: '0xAb', toKey: '0xab', amount: 15n }], from: null })).toBe(
      'c7a476984077eff09d85ad973ee999d5135ca763fc47ec551fb6e0dbccb963da',
    );
  });

  it('one recipient with a memo and a tag (then at the top level of the body)', () => {
    const outputs = [{ to: '0xAb', toKey: '0xab', amount: 15n, memo: 'invoice 7', destinationTag: 42 }];
    expect(intentHash(7, { asset, outputs, from: { address: '0xCd', matchKey: '0xcd' } })).toBe(
      '759400282c2193c5e21856dddf22af28638076e348a5e6f1c532ea097d00b840',
    );
  });

  it('several recipients without memos', () => {
    const outputs = [
      { to: 'a', toKey: 'a', amount: 1n },
      { to: 'b', toKey: 'b', amount: 2n },
    ];
    expect(intentHash(7, { asset, outputs, from: null })).toBe('77075ed7ab165ae0108e41b57c0fa59e0d32cfc6ad33f24c10b056b3a65d2063');
  });

  it('several recipients: a memo on one of them changes the hash, and which one matters', () => {
    const base = [
      { to: 'a', toKey: 'a', amount: 1n },
      { to: 'b', toKey: 'b', amount: 2n },
    ];
    const plain = intentHash(7, { asset, outputs: base, from: null });
    const first = intentHash(7, { asset, outputs: [{ ...base[0], memo: 'x' }, base[1]] as typeof base, from: null });
    const second = intentHash(7, { asset, outputs: [base[0], { ...base[1], memo: 'x' }] as typeof base, from: null });
    expect(new Set([plain, first, second]).size).toBe(3);
  });
});
