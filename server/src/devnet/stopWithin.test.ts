import type { Logger } from '@walletd/core';
import { stopWithin } from './stopWithin';

const fakeLogger = () => {
  const warnings: string[] = [];
  return { warnings, logger: { warn: (_: unknown, msg: string) => warnings.push(msg) } as unknown as Logger };
};

describe('stopWithin (an engine that does not stop is left behind with a warning)', () => {
  it('returns with a warning when the stop never ends', async () => {
    const { warnings, logger } = fakeLogger();
    await stopWithin(logger, 'ton', () => new Promise<void>(() => undefined), 20);
    expect(warnings).toEqual(['local chain ton did not stop in 0.02 s; going on without it']);
  });

  it('returns with a warning when the stop fails, and quietly when it ends', async () => {
    const { warnings, logger } = fakeLogger();
    await stopWithin(logger, 'polkadot', () => Promise.reject(new Error('gone')));
    await stopWithin(logger, 'solana', () => Promise.resolve());
    expect(warnings).toEqual(['local chain polkadot did not stop cleanly']);
  });
});
