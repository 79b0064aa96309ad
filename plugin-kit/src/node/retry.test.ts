import { TransientError, backoffDelay, retry } from './retry';

/** A sleep that only records the pauses asked for: the loop's arithmetic, never the clock. */
const recordingSleep = () => {
  const pauses: number[] = [];
  return { pauses, sleep: async (ms: number) => void pauses.push(ms) };
};

/** A call that fails `failures` times with `error`, then answers 'ok'; counts its attempts. */
const failing = (failures: number, error: () => unknown) => {
  let calls = 0;
  return {
    calls: () => calls,
    fn: async () => {
      calls++;
      if (calls <= failures) throw error();
      return 'ok';
    },
  };
};

describe('retry, the one back-off loop of the node clients', () => {
  it('tries a transient failure again until it succeeds, within the attempts', async () => {
    const call = failing(2, () => new TransientError('reset'));
    const { pauses, sleep } = recordingSleep();
    await expect(retry(call.fn, { attempts: 3, sleep })).resolves.toBe('ok');
    expect(call.calls()).toBe(3);
    expect(pauses).toHaveLength(2);
  });

  it('stops at the attempts given and throws the last failure with the attempts made', async () => {
    const call = failing(10, () => new TransientError('HTTP 503', 'http'));
    const { pauses, sleep } = recordingSleep();
    const e = (await retry(call.fn, { attempts: 4, sleep }).catch((x: unknown) => x)) as TransientError;
    expect(e).toBeInstanceOf(TransientError);
    expect(e.kind).toBe('http');
    expect(e.attempts).toBe(4);
    expect(call.calls()).toBe(4);
    expect(pauses).toHaveLength(3);
  });

  it('never repeats a failure that is not transient, nor a call given one attempt', async () => {
    const refused = failing(1, () => new Error('the node refused it'));
    await expect(retry(refused.fn, { attempts: 5, sleep: recordingSleep().sleep })).rejects.toThrow('the node refused it');
    expect(refused.calls()).toBe(1);

    const send = failing(1, () => new TransientError('reset'));
    await expect(retry(send.fn, { attempts: 1, sleep: recordingSleep().sleep })).rejects.toThrow('reset');
    expect(send.calls()).toBe(1);
  });

  it("lets the caller say what is transient (a node's own busy answer)", async () => {
    const call = failing(2, () => new Error('Scan already in progress'));
    const isTransient = (e: unknown) => (e as Error).message.includes('in progress');
    await expect(retry(call.fn, { attempts: 5, isTransient, sleep: recordingSleep().sleep })).resolves.toBe('ok');
    expect(call.calls()).toBe(3);
  });

  it('doubles the pause, jitters it within its upper half, and caps it', async () => {
    const call = failing(7, () => new TransientError('reset'));
    const low = recordingSleep();
    await retry(call.fn, { attempts: 8, backoffMs: 100, maxBackoffMs: 1000, random: () => 0, sleep: low.sleep });
    expect(low.pauses).toEqual([50, 100, 200, 400, 500, 500, 500]);

    const again = failing(7, () => new TransientError('reset'));
    const high = recordingSleep();
    await retry(again.fn, { attempts: 8, backoffMs: 100, maxBackoffMs: 1000, random: () => 0.999999, sleep: high.sleep });
    expect(high.pauses).toEqual([100, 200, 400, 800, 1000, 1000, 1000]);

    for (let n = 1; n <= 40; n++) {
      const d = backoffDelay(n);
      expect(d).toBeGreaterThanOrEqual(Math.min(10_000, 250 * 2 ** (n - 1)) / 2);
      expect(d).toBeLessThanOrEqual(10_000);
    }
  });

  it('stops when aborted: no attempt after the signal, and a pause under way ends at once', async () => {
    const before = new AbortController();
    before.abort(new Error('shutting down'));
    const untouched = failing(0, () => null);
    await expect(retry(untouched.fn, { attempts: 3, signal: before.signal })).rejects.toThrow('shutting down');
    expect(untouched.calls()).toBe(0);

    // The real timer, an hour long: the test ends only because the abort cuts the pause short.
    const during = new AbortController();
    const call = failing(10, () => new TransientError('reset'));
    const pending = retry(call.fn, { attempts: 3, backoffMs: 3_600_000, maxBackoffMs: 3_600_000, signal: during.signal });
    await new Promise((r) => setImmediate(r));
    during.abort(new Error('shutting down'));
    await expect(pending).rejects.toThrow('shutting down');
    expect(call.calls()).toBe(1);
  });

  it('does not retry a failure that came from the abort itself', async () => {
    const controller = new AbortController();
    let calls = 0;
    const fn = async () => {
      calls++;
      controller.abort(new Error('stop'));
      throw new TransientError('aborted mid-call');
    };
    await expect(retry(fn, { attempts: 5, signal: controller.signal, sleep: recordingSleep().sleep })).rejects.toThrow('stop');
    expect(calls).toBe(1);
  });
});
