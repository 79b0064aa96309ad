import { Writable } from 'node:stream';
import { createLogger } from './logger';
import { unredactedSibling } from './unredacted';
import { withRole } from './withRole';

function capture(): { lines: () => Record<string, unknown>[]; stream: Writable } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return { stream, lines: () => chunks.flatMap((c) => c.split('\n').filter(Boolean)).map((l) => JSON.parse(l)) };
}

describe('unredactedSibling', () => {
  it("writes to the same destination with the logger's bindings, level and time format", () => {
    const out = capture();
    const logger = withRole(createLogger({ level: 'warn', destination: out.stream }), 'api');
    const sibling = unredactedSibling(logger);
    sibling.info({ reqId: 'a' }, 'below the level');
    sibling.warn({ reqId: 'b', res: { statusCode: 200 } }, 'request completed');
    logger.warn({ reqId: 'c' }, 'from the original');
    const [line, original] = out.lines();
    expect(out.lines()).toHaveLength(2);
    // The same fields in the same order as the original's lines (log shippers parse both alike).
    expect(Object.keys(line as object).filter((k) => k !== 'res')).toEqual(Object.keys(original as object));
    expect(line).toEqual(
      expect.objectContaining({
        level: 40,
        service: 'walletd',
        role: 'api',
        reqId: 'b',
        res: { statusCode: 200 },
        msg: 'request completed',
      }),
    );
    expect(String(line?.time)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
});
