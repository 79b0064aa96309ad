import { DEFAULT_PIPELINE_BYTES, DEFAULT_PIPELINE_DEPTH, windowSize } from './windowSize';

describe('the catch-up window', () => {
  const MiB = 1024 * 1024;
  it('opens to 8 heights before any block size is known, then to pipelineDepth for small blocks', () => {
    expect(windowSize({ depth: DEFAULT_PIPELINE_DEPTH, pipelineBytes: DEFAULT_PIPELINE_BYTES, blockBytes: 0 })).toBe(8);
    expect(windowSize({ depth: 4, pipelineBytes: DEFAULT_PIPELINE_BYTES, blockBytes: 0 })).toBe(4);
    expect(windowSize({ depth: DEFAULT_PIPELINE_DEPTH, pipelineBytes: DEFAULT_PIPELINE_BYTES, blockBytes: 1866 })).toBe(32);
  });

  it('holds fewer heights when blocks are big, never fewer than one', () => {
    // Mainnet's biggest blocks with receipts and traces: about 17 MB each.
    expect(windowSize({ depth: 32, pipelineBytes: 256 * MiB, blockBytes: 17 * MiB })).toBe(15);
    expect(windowSize({ depth: 32, pipelineBytes: 1 * MiB, blockBytes: 64 * MiB })).toBe(1);
  });
});
