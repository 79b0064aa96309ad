import { Writable } from 'node:stream';
import { createLogger } from '../log/logger';
import { KNEX_REPEAT_WINDOW_MS, knexLog } from './knexLog';

describe('knexLog', () => {
  it('logs a repeated pool warning once per window, with the count, first line only', () => {
    const lines: { msg: string; repeats?: number }[] = [];
    const destination = new Writable({
      write(chunk, _enc, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    let clock = 1_000_000;
    const log = knexLog(createLogger({ destination }), () => clock);
    const acquire = 'Acquire connection error: connect ECONNREFUSED 127.0.0.1:54329\n    at TCPConnectWrap.afterConnect';
    for (let i = 0; i < 60; i++) {
      log.warn?.(acquire);
      clock += 500;
    }
    log.warn?.('another warning');
    // 60 warnings over 30 s: the first, then the 59 repeats folded into one line when the window ends.
    clock += KNEX_REPEAT_WINDOW_MS;
    log.warn?.(acquire);
    expect(lines.map((l) => l.msg)).toEqual([
      'Acquire connection error: connect ECONNREFUSED 127.0.0.1:54329',
      'another warning',
      'Acquire connection error: connect ECONNREFUSED 127.0.0.1:54329 (repeated 59 times in the last 60 s)',
    ]);
    expect(lines[2]?.repeats).toBe(59);
  });
});
