import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withFileLock } from './fileLock';

describe('withFileLock', () => {
  const dir = mkdtempSync(join(tmpdir(), 'walletd-lock-'));

  it('lets one holder in at a time and removes the lock after', async () => {
    const file = join(dir, 'a.lock');
    const order: string[] = [];
    const hold = (name: string) =>
      withFileLock(file, { what: 'test' }, async () => {
        order.push(`${name} in`);
        await new Promise((r) => setTimeout(r, 50));
        order.push(`${name} out`);
      });
    await Promise.all([hold('one'), hold('two')]);
    expect(order).toEqual(['one in', 'one out', 'two in', 'two out']);
    expect(existsSync(file)).toBe(false);
  });

  it('takes a lock whose holder is dead (a walletd process killed mid-start)', async () => {
    const file = join(dir, 'b.lock');
    // Pid 2^22+1 is above Linux's pid_max: no such process.
    writeFileSync(file, '4194305 12345\n');
    expect(await withFileLock(file, { what: 'test' }, async () => 'taken')).toBe('taken');
    expect(existsSync(file)).toBe(false);
  });
});
