import { type ObservedNodeCall, observeNodeCalls, observedNodeCall } from './nodeCallObserver';

describe('observedNodeCall', () => {
  const seen: ObservedNodeCall[] = [];
  beforeEach(() => {
    seen.length = 0;
    observeNodeCalls((c) => seen.push(c));
  });
  afterAll(() => observeNodeCalls(null));

  it('reports each call by name and method, answered or failed, a batch under one name', async () => {
    expect(await observedNodeCall('ethereum/mainnet', 'eth_blockNumber', async () => 7)).toBe(7);
    await expect(
      observedNodeCall('ethereum/mainnet', 'eth_getLogs ×12', async () => {
        throw new RangeError('down');
      }),
    ).rejects.toThrow('down');
    expect(seen.map(({ name, what, ok }) => [name, what, ok])).toEqual([
      ['ethereum/mainnet', 'eth_blockNumber', true],
      ['ethereum/mainnet', 'eth_getLogs batch', false],
    ]);
    expect(seen.every((c) => c.seconds >= 0)).toBe(true);
  });

  it("an observer's failure does not fail the call; without an observer nothing is reported", async () => {
    observeNodeCalls(() => {
      throw new RangeError('observer');
    });
    expect(await observedNodeCall(undefined, 'x', async () => 'answer')).toBe('answer');
    observeNodeCalls(null);
    await observedNodeCall(undefined, 'x', async () => 1);
    expect(seen).toEqual([]);
  });
});
