import { Writable } from 'node:stream';
import { BaseError } from '@walletd/plugin-kit';
import { createLogger } from './logger';
import { messageOnce } from './messageOnce';

describe('messageOnce', () => {
  it('appends a cause only when the message does not already carry its text', () => {
    const inner = new Error('timed out after 200 ms');
    expect(messageOnce(new BaseError('node_error', 'the node did not answer: timed out after 200 ms', { cause: inner }))).toBe(
      'the node did not answer: timed out after 200 ms',
    );
    expect(messageOnce(new Error('could not verify', { cause: inner }))).toBe('could not verify: timed out after 200 ms');
    const loop = new Error('a') as Error & { cause?: unknown };
    loop.cause = loop;
    expect(messageOnce(loop)).toBe('a');
  });

  it('is what the logger writes for err', async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = createLogger({ destination });
    const inner = new Error('connect ECONNREFUSED 127.0.0.1:9');
    logger.warn({ err: new BaseError('node_error', `the node did not answer: ${inner.message}`, { cause: inner }) }, 'round failed');
    logger.flush();
    const logged = JSON.parse(lines[0] ?? '{}');
    expect(logged.err.message).toBe('the node did not answer: connect ECONNREFUSED 127.0.0.1:9');
  });
});
