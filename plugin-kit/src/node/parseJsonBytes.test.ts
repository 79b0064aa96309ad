import { PIECE_BYTES, parseJsonBytes } from './parseJsonBytes';

const whole = (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes));
/** The value, or the error's class and message: what a caller of either could observe. */
function outcome(f: () => unknown): { value: string } | { error: string } {
  try {
    const v = f();
    // Own keys in order (JSON.stringify keeps an own `__proto__` member too), and the prototypes.
    return { value: `${JSON.stringify(v)}|${protos(v)}` };
  } catch (err) {
    return { error: `${(err as Error).constructor.name}: ${(err as Error).message}` };
  }
}
function protos(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(protos).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.getPrototypeOf(v) === Object.prototype ? 'O' : 'X'}${Object.values(v).map(protos).join(',')}}`;
  return '';
}
const same = (bytes: Uint8Array) => expect(outcome(() => parseJsonBytes(bytes))).toEqual(outcome(() => whole(bytes)));

/** A seeded generator, so a failure can be replayed. */
function rng(seed: number) {
  let s = Math.imul(seed, 2654435761) >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** JSON text with random whitespace between tokens, strings with escapes and non-ASCII. */
function randomJson(r: () => number, depth: number, budget: { left: number }, top = true): string {
  const ws = () => [' ', '\n', '\t', '\r', '', '', ''][Math.floor(r() * 7)] as string;
  const str = () => {
    const parts = ['a', 'é', '\\"', '\\\\', '\\u00e9', '😀', '\\n', '}', ']', '{', ',', ':', '0x5fbdb2315678afecb367f032d93f642f64180aa3'];
    let s = '"';
    const n = Math.floor(r() * 12);
    for (let i = 0; i < n; i++) s += parts[Math.floor(r() * parts.length)];
    return `${s}"`;
  };
  // A document is an array or an object; below it, about a third of the values are scalars.
  const pick = top ? 0.3 + r() * 0.7 : r();
  if (depth <= 0 || budget.left <= 0 || pick < 0.3) {
    const scalars = [str(), '0', '-12.5e3', '123456789012345678901234567890', 'true', 'false', 'null', str()];
    const scalar = scalars[Math.floor(r() * scalars.length)] as string;
    budget.left -= scalar.length;
    return scalar;
  }
  const n = Math.floor(r() * (depth > 2 ? 60 : 8));
  const items: string[] = [];
  const keys = ['a', 'b', '__proto__', '1', '10', 'logs', 'a'];
  for (let i = 0; i < n && budget.left > 0; i++) {
    const v = randomJson(r, depth - 1, budget, false);
    items.push(
      pick < 0.65 ? `${ws()}${v}${ws()}` : `${ws()}"${keys[Math.floor(r() * keys.length)]}${r() < 0.5 ? i : ''}"${ws()}:${ws()}${v}${ws()}`,
    );
  }
  return pick < 0.65 ? `[${items.join(',')}]` : `{${items.join(',')}}`;
}

describe('parseJsonBytes', () => {
  it('gives what JSON.parse gives for an EVM block of 400 Transfer logs, cut into pieces', () => {
    const log = (i: number) => ({
      address: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
      topics: [
        '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
        `0x${'0'.repeat(24)}${i.toString(16).padStart(40, '0')}`,
      ],
      data: `0x${i.toString(16).padStart(64, '0')}`,
      logIndex: `0x${i.toString(16)}`,
      removed: false,
    });
    const doc = {
      block: { jsonrpc: '2.0', id: 1, result: { number: '0x10', transactions: [{ hash: '0x1', input: `0x${'ab'.repeat(30_000)}` }] } },
      receipts: { jsonrpc: '2.0', id: 2, result: [{ status: '0x1', logs: Array.from({ length: 400 }, (_, i) => log(i)) }] },
      callTraces: { jsonrpc: '2.0', id: 3, result: [{ txHash: '0x1', result: { type: 'CALL', calls: [] } }] },
    };
    const bytes = new TextEncoder().encode(JSON.stringify(doc, null, 1));
    expect(bytes.byteLength).toBeGreaterThan(4 * PIECE_BYTES);
    // Cut, not parsed whole: several JSON.parse calls, none given a large-object string (the 60 KB
    // input is one string, parsed on its own).
    const parse = jest.spyOn(JSON, 'parse');
    try {
      expect(parseJsonBytes(bytes)).toEqual(doc);
      expect(parse.mock.calls.length).toBeGreaterThan(4);
      expect(Math.max(...parse.mock.calls.map(([t]) => t.length))).toBeLessThan(128 * 1024);
    } finally {
      parse.mockRestore();
    }
    same(bytes);
  });

  it('gives what JSON.parse gives on random large documents: whitespace, escapes, non-ASCII, duplicate keys, __proto__', () => {
    let large = 0;
    for (let seed = 1; seed <= 120; seed++) {
      const text = randomJson(rng(seed), 5, { left: 50_000 });
      const bytes = new TextEncoder().encode(` \n${text}\t `);
      if (bytes.byteLength > PIECE_BYTES) large++;
      same(bytes);
    }
    // The cutter ran, not only the small-document path.
    expect(large).toBeGreaterThan(100);
  });

  it('throws what JSON.parse throws on a damaged document, and parses one a change left valid as it does', () => {
    const r = rng(7);
    let seed = 11;
    let base = new Uint8Array(0);
    while (base.byteLength <= 2 * PIECE_BYTES) base = new TextEncoder().encode(randomJson(rng(seed++), 5, { left: 100_000 }));
    expect(base.byteLength).toBeGreaterThan(2 * PIECE_BYTES);
    const damage = [0x2c, 0x22, 0x5b, 0x5d, 0x7b, 0x7d, 0x3a, 0x5c, 0x20, 0x41, 0xff, 0xc3];
    for (let n = 0; n < 150; n++) {
      const at = Math.floor(r() * base.byteLength);
      const kind = n % 3;
      const b = damage[Math.floor(r() * damage.length)] as number;
      const bytes =
        kind === 0
          ? Buffer.concat([base.subarray(0, at), base.subarray(at + 1)]) // a byte gone
          : kind === 1
            ? Buffer.concat([base.subarray(0, at), Buffer.from([b]), base.subarray(at)]) // a byte added
            : base.subarray(0, at); // cut short
      same(new Uint8Array(bytes));
    }
    // Trailing data, a byte-order mark, invalid UTF-8 inside strings.
    same(Buffer.concat([base, Buffer.from(' ]')]));
    same(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), base]));
    const bad = Buffer.from(JSON.stringify(Array.from({ length: 3000 }, (_, i) => `x${i}ÿ`)));
    for (let i = 0; i < bad.length; i++) if (bad[i] === 0xc3) bad[i] = 0xff;
    same(bad);
  });

  it('parses small documents and scalars whole, as JSON.parse does', () => {
    for (const t of ['{}', '[]', ' 1 ', '"x"', 'null', '{"a":[1,2,{"b":null}]}', '', '{', `"${'a'.repeat(PIECE_BYTES * 2)}"`])
      same(new TextEncoder().encode(t));
    same(new TextEncoder().encode(`[${' '.repeat(PIECE_BYTES * 2)}]`));
    same(new TextEncoder().encode(`{"a":${' '.repeat(PIECE_BYTES * 2)}1}`));
  });
});
