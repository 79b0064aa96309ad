import { nodeHttpLimits } from './nodeHttpRequest';
import { DEFAULT_MAX_RESPONSE_BYTES } from './readCapped';

describe('nodeHttpLimits: a REST transport under the kit node-call rules', () => {
  it('defaults as the JSON-RPC client: 15 s per attempt, two more attempts for a read, 64 MiB', () => {
    expect(nodeHttpLimits({ url: 'http://node' }, true)).toEqual({ timeoutMs: 15_000, maxBytes: DEFAULT_MAX_RESPONSE_BYTES, attempts: 3 });
  });

  it('tries a publishing call once, whatever the retries', () => {
    expect(nodeHttpLimits({ url: 'http://node', retries: 5 }, false).attempts).toBe(1);
  });

  it('passes the operator settings and the node name on', () => {
    expect(
      nodeHttpLimits({ url: 'http://node', timeoutMs: 100, retries: 0, backoffMs: 1, maxResponseBytes: 2048, name: 'tron/nile' }, true),
    ).toEqual({ timeoutMs: 100, maxBytes: 2048, attempts: 1, backoffMs: 1, name: 'tron/nile' });
  });
});
