import { trace } from '@opentelemetry/api';
import { activeTraceparent, contextOf, spanContextOf, withSpan } from './spans';

// No tracer provider is registered here: the API's no-op one, as in a walletd without an OTLP endpoint.
describe('spans without a tracer provider (traces off)', () => {
  it('runs the function, returns its value and records nothing to store', async () => {
    const got = await withSpan('x', {}, async (span) => {
      expect(span.isRecording()).toBe(false);
      return activeTraceparent();
    });
    expect(got).toBeNull();
  });

  it('passes a throw on', async () => {
    await expect(
      withSpan('x', {}, async () => {
        throw new RangeError('boom');
      }),
    ).rejects.toThrow('boom');
  });
});

describe('a stored traceparent', () => {
  const stored = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

  it('becomes the remote parent of what continues it', () => {
    expect(spanContextOf(stored)).toEqual({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      traceFlags: 1,
      isRemote: true,
    });
    const parent = contextOf(stored);
    expect(parent && trace.getSpanContext(parent)?.spanId).toBe('00f067aa0ba902b7');
  });

  it('is ignored when absent, malformed or all zeros', () => {
    for (const bad of [null, undefined, '', 'junk', `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`, stored.toUpperCase(), `${stored}-x`]) {
      expect(spanContextOf(bad)).toBeNull();
      expect(contextOf(bad)).toBeUndefined();
    }
  });
});
