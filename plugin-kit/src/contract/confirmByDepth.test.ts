import { confirmByDepth as confirmTransfers } from './confirmByDepth';

describe('EVM confirm', () => {
  const pending = [
    { id: 1, blockNumber: 100n },
    { id: 2, blockNumber: 101n },
    { id: 3, blockNumber: null },
  ];

  it('confirms at the threshold, counting the block itself', () => {
    expect(confirmTransfers({ pending, head: 102n, finalized: null, threshold: 3, finality: 'confirmations' })).toEqual([
      { id: 1, status: 'confirmed', confirmations: 3 },
    ]);
    expect(confirmTransfers({ pending, head: 101n, finalized: null, threshold: 3, finality: 'confirmations' })).toEqual([]);
  });

  it('with the finalized rule, confirms what the finalized block covers, whatever the count', () => {
    expect(confirmTransfers({ pending, head: 500n, finalized: 100n, threshold: 1000, finality: 'finalized' })).toEqual([
      { id: 1, status: 'confirmed', confirmations: 401 },
    ]);
    expect(confirmTransfers({ pending, head: 500n, finalized: null, threshold: 1, finality: 'finalized' })).toEqual([]);
  });

  it('never confirms a transfer that is in no block (detached by a reorg)', () => {
    expect(
      confirmTransfers({ pending: [{ id: 3, blockNumber: null }], head: 10_000n, finalized: 10_000n, threshold: 1, finality: 'finalized' }),
    ).toEqual([]);
  });
});
