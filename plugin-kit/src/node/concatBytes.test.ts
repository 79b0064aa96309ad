import { Readable } from 'node:stream';
import { concatBytes } from './concatBytes';
import { readCapped } from './readCapped';

describe('concatBytes', () => {
  it('joins text and bytes exactly, into a buffer of its own the detect pool can transfer', () => {
    const big = Buffer.alloc(300_000, 0x61);
    const out = concatBytes(['{"block":', Buffer.from('"é"'), ',"x":', big, '}']);
    expect(Buffer.from(out).toString('utf8')).toBe(`{"block":"é","x":${'a'.repeat(300_000)}}`);
    // Whole ArrayBuffer, not a view into Buffer's shared pool: detectPool transfers only then.
    expect(out.byteOffset).toBe(0);
    expect(out.byteLength).toBe(out.buffer.byteLength);
    // A small answer too (where Buffer.allocUnsafe would hand out a slice of its pool).
    const small = concatBytes(['{"block":', Buffer.from('1'), '}']);
    expect(small.byteLength).toBe(small.buffer.byteLength);
  });
});

describe('readCapped', () => {
  it('joins many chunks byte for byte, and hands one chunk back as it is', async () => {
    const chunks = [Buffer.from('ab'), Buffer.from('cdé'), Buffer.alloc(70_000, 0x7a)];
    const joined = await readCapped(Readable.from(chunks), 1 << 20);
    expect(joined.equals(Buffer.concat(chunks))).toBe(true);
    const one = await readCapped(Readable.from([Buffer.from('{"result":1}')]), 1 << 20);
    expect(one.toString()).toBe('{"result":1}');
  });
});
