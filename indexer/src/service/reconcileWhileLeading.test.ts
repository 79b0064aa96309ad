import { createLogger } from '@walletd/core';
import { type ReconcileLoop, type Reconciler, reconcileWhileLeading } from './reconcileWhileLeading';

/**
 * The reconciliation loop's schedule (docs/guide/reconciliation.md), on jest's fake clock: the first run
 * as soon as the follower has caught up rather than an interval after the lead, and a run that saw
 * a drift once gets its second look `recheckInMs` later, a few times in a row at most.
 */
describe('reconcileWhileLeading', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function harness(reconciler: Reconciler) {
    const state = { leading: true, caughtUp: false };
    const loop: ReconcileLoop = {
      key: { chain: 'ethereum', network: 'devnet' },
      logger: createLogger({ level: 'silent' }),
      leading: () => state.leading,
      held: () => false,
      caughtUp: () => state.caughtUp,
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    };
    const done = reconcileWhileLeading(reconciler, loop);
    return { state, done };
  }

  it('runs first once the follower has caught up (plus firstRunDelayMs), not an interval after taking the lead', async () => {
    const calls: string[] = [];
    const { state, done } = harness({ intervalMs: 600_000, firstRunDelayMs: 1000, run: async () => calls.push('run') });
    await jest.advanceTimersByTimeAsync(30_000);
    expect(calls).toEqual([]); // still catching up: a comparison now would see blocks not yet indexed
    state.caughtUp = true;
    await jest.advanceTimersByTimeAsync(999);
    expect(calls).toEqual([]);
    await jest.advanceTimersByTimeAsync(600);
    expect(calls).toEqual(['run']);
    await jest.advanceTimersByTimeAsync(600_000);
    expect(calls).toEqual(['run', 'run']);
    state.leading = false;
    await jest.advanceTimersByTimeAsync(600_000);
    await done;
  });

  it('a follower that never catches up still gets its first run an interval after the lead', async () => {
    const calls: string[] = [];
    const { state, done } = harness({ intervalMs: 60_000, firstRunDelayMs: 0, run: async () => calls.push('run') });
    await jest.advanceTimersByTimeAsync(60_500);
    expect(calls).toEqual(['run']);
    state.leading = false;
    await jest.advanceTimersByTimeAsync(60_000);
    await done;
  });

  it('a run that asks for a second look gets it recheckInMs later, at most three times in a row, then the interval', async () => {
    const calls: string[] = [];
    const { state, done } = harness({
      intervalMs: 600_000,
      firstRunDelayMs: 0,
      run: async () => {
        calls.push('run');
        return { recheckInMs: 5000 };
      },
      recheck: async () => {
        calls.push('recheck');
        return { recheckInMs: 5000 };
      },
    });
    state.caughtUp = true;
    await jest.advanceTimersByTimeAsync(600);
    expect(calls).toEqual(['run']);
    await jest.advanceTimersByTimeAsync(5000);
    expect(calls).toEqual(['run', 'recheck']);
    await jest.advanceTimersByTimeAsync(10_000);
    expect(calls).toEqual(['run', 'recheck', 'recheck', 'recheck']);
    await jest.advanceTimersByTimeAsync(100_000);
    expect(calls).toHaveLength(4);
    // The next run, an interval after the third recheck (at 15.6 s), may ask for its own second look.
    await jest.advanceTimersByTimeAsync(500_100);
    expect(calls).toEqual(['run', 'recheck', 'recheck', 'recheck', 'run']);
    state.leading = false;
    await jest.advanceTimersByTimeAsync(600_000);
    await done;
  });

  it('without firstRunDelayMs (the sweeper, the ledger check) the first run comes an interval after the lead, as before', async () => {
    const calls: string[] = [];
    const { state, done } = harness({ intervalMs: 10_000, run: async () => calls.push('run') });
    state.caughtUp = true;
    await jest.advanceTimersByTimeAsync(9_000);
    expect(calls).toEqual([]);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(calls).toEqual(['run']);
    state.leading = false;
    await jest.advanceTimersByTimeAsync(10_000);
    await done;
  });
});
