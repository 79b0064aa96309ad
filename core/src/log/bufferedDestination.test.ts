import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bufferedDestination } from './bufferedDestination';
import { createLogger } from './logger';

const tick = () => new Promise((r) => setImmediate(r));

describe('bufferedDestination', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'walletd-log-'));
  });
  afterEach(() => {
    jest.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes lines logged one at a time (as at a steady request rate) in one write, and every line arrives', async () => {
    const file = join(dir, 'out.log');
    const writes = jest.spyOn(fs, 'write');
    const logger = createLogger({ destination: bufferedDestination({ dest: file, flushMs: 20 }) });
    for (let i = 0; i < 20; i++) {
      logger.info({ reqId: String(i) }, 'request completed');
      await tick();
    }
    // Flushed by the timer, with no more lines behind it.
    for (let i = 0; i < 500 && readFileSync(file, 'utf8').split('\n').filter(Boolean).length < 20; i++)
      await new Promise((r) => setTimeout(r, 10));
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    expect(lines.map((l) => JSON.parse(l).reqId)).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
    // Unbuffered, each of the 20 lines was its own write through the thread pool.
    expect(writes.mock.calls.length).toBeLessThanOrEqual(2);
  });

  it("is createLogger's default: 20 lines on stderr one tick apart take at most two writes", () => {
    const core = join(__dirname, '..', '..', 'dist', 'index.js');
    const script = `
      const fs = require('node:fs'); const write = fs.write; let n = 0;
      fs.write = function (fd, ...rest) { if (fd === 2) n++; return write.call(this, fd, ...rest); };
      const l = require(${JSON.stringify(core)}).createLogger();
      let i = 0;
      const next = () => { l.info({ n: i }, 'line'); if (++i < 20) setImmediate(next); else setTimeout(() => console.log(n), 400); };
      next();`;
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(r.stderr.split('\n').filter((l) => l.startsWith('{'))).toHaveLength(20);
    expect(Number(r.stdout.trim())).toBeLessThanOrEqual(2);
  });

  it('loses no line when the process dies of an uncaught exception or exits', () => {
    const core = join(__dirname, '..', '..', 'dist', 'index.js');
    for (const end of ["throw new Error('boom')", 'process.exit(3)']) {
      const r = spawnSync(
        process.execPath,
        ['-e', `const l = require(${JSON.stringify(core)}).createLogger(); for (let i = 0; i < 3; i++) l.info({ n: i }, 'line'); ${end};`],
        { encoding: 'utf8' },
      );
      const lines = r.stderr.split('\n').filter((l) => l.startsWith('{'));
      expect(lines.map((l) => JSON.parse(l).n)).toEqual([0, 1, 2]);
    }
  });
});
