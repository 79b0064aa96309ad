import { decodeFrame, encodeFrame } from './frame';

describe('block frame', () => {
  const header = {
    number: '12',
    hash: `0x${'01'.repeat(32)}`,
    parentHash: `0x${'02'.repeat(32)}`,
    specName: 'statemint',
    specVersion: 1,
    metadataKey: 'statemint/1/x',
    extrinsics: ['0x0400'],
    events: null,
  };

  it('round-trips the header and hands back the metadata bytes without a copy', () => {
    const metadata = new Uint8Array([1, 2, 3, 4, 5]);
    const raw = encodeFrame(header, metadata);
    const f = decodeFrame(raw);
    expect(f.header).toEqual(header);
    expect(Array.from(f.metadata)).toEqual([1, 2, 3, 4, 5]);
    expect(f.metadata.buffer).toBe(raw.buffer);
  });

  it('refuses a truncated frame', () => {
    const raw = encodeFrame(header, new Uint8Array());
    expect(() => decodeFrame(raw.subarray(0, 3))).toThrow(/too short/);
    expect(() => decodeFrame(raw.subarray(0, 20))).toThrow(/overruns/);
  });
});
