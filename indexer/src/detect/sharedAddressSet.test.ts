import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { SharedAddressSet, SharedAddressView } from './sharedAddressSet';

const addr = () => `0x${randomBytes(20).toString('hex')}`;

describe('SharedAddressSet', () => {
  it('behaves like a Set of addresses across growth (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ minLength: 20, maxLength: 20 }), { maxLength: 300 }), (keys) => {
        const set = new SharedAddressSet(4);
        const reference = new Set<string>();
        for (const k of keys) {
          const hex = `0x${Buffer.from(k).toString('hex')}`;
          const isZero = k.every((b) => b === 0);
          expect(set.add(hex)).toBe(!isZero && !reference.has(hex));
          if (!isZero) reference.add(hex);
        }
        const view = new SharedAddressView(set.table);
        for (const hex of reference) expect(view.has(hex)).toBe(true);
        expect(set.size).toBe(reference.size);
        expect(view.has(addr())).toBe(false);
      }),
    );
  });

  it('hasBytes finds every watched script of every length in place, across growth, and answers no for others (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ minLength: 20, maxLength: 64 }), { minLength: 1, maxLength: 200 }),
        fc.nat({ max: 7 }),
        (scripts, pad) => {
          const set = new SharedAddressSet(4);
          for (const s of scripts) set.add(Buffer.from(s).toString('hex'));
          const view = new SharedAddressView(set.table);
          for (const s of scripts) {
            if (s.every((b) => b === 0)) continue;
            // The script inside a larger buffer, as the detector sees it in a block.
            const block = new Uint8Array(pad + s.length + 3);
            block.set(s, pad);
            expect(view.hasBytes(block, pad, pad + s.length)).toBe(true);
            expect(view.has(Buffer.from(s).toString('hex'))).toBe(true);
          }
        },
      ),
    );
    // Unwatched 22-byte P2WPKH scripts against 10 000 watched ones: none is reported watched.
    const set = new SharedAddressSet(4);
    for (let i = 0; i < 10_000; i++) set.add(Buffer.concat([Buffer.from([0, 20]), randomBytes(20)]).toString('hex'));
    const view = new SharedAddressView(set.table);
    let hits = 0;
    for (let i = 0; i < 10_000; i++) if (view.hasBytes(Buffer.concat([Buffer.from([0, 20]), randomBytes(20)]))) hits++;
    expect(hits).toBe(0);
  });

  it('keeps EVM keys as bytes, digests other match forms, refuses empty and malformed EVM keys', () => {
    const set = new SharedAddressSet();
    const a = addr();
    expect(set.add(`0x${a.slice(2).toUpperCase()}`)).toBe(false);
    expect(set.add(`0x${'0'.repeat(40)}`)).toBe(false);
    expect(set.add('')).toBe(false);
    set.add(a);
    // A UTXO output script (P2WPKH) is held exactly, through its digest.
    const script = `0014${'ab'.repeat(20)}`;
    expect(set.add(script)).toBe(true);
    const view = new SharedAddressView(set.table);
    expect(view.has(a)).toBe(true);
    expect(view.has(script)).toBe(true);
    // The same lookup from the raw script bytes (the UTXO detector's hot path), no hex built.
    expect(view.hasBytes(Buffer.from(script, 'hex'))).toBe(true);
    expect(view.hasBytes(Buffer.from(`0014${'ab'.repeat(19)}ac`, 'hex'))).toBe(false);
    // In place: the script inside a larger buffer, by its offsets.
    const inBlock = Buffer.from(`ffff${script}eeee`, 'hex');
    expect(view.hasBytes(inBlock, 2, inBlock.length - 2)).toBe(true);
    expect(view.hasBytes(inBlock, 1, inBlock.length - 2)).toBe(false);
    // A base58 key (not hex) is digested.
    expect(set.add('TLyqzVGLV1srkB7dToTAEqgDSfPtXRJZYH')).toBe(true);
    expect(new SharedAddressView(set.table).has('TLyqzVGLV1srkB7dToTAEqgDSfPtXRJZYH')).toBe(true);
    expect(view.has(`0014${'ab'.repeat(19)}ac`)).toBe(false);
    expect(view.has(`0x${a.slice(2).toUpperCase()}`)).toBe(false);
    expect(view.has('garbage')).toBe(false);
  });
});
