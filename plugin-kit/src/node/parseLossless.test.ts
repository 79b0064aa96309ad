import { parseLossless } from './parseLossless';

describe('parseLossless', () => {
  it('keeps fractions, exponents and unsafe integers as their text, safe integers as numbers', () => {
    expect(parseLossless('{"a":0.00012345,"b":1e-8,"c":12345678901234567890,"d":42,"e":-7,"f":[1.10,"2.5"]}')).toEqual({
      a: '0.00012345',
      b: '1e-8',
      c: '12345678901234567890',
      d: 42,
      e: -7,
      f: ['1.10', '2.5'],
    });
  });

  it('never touches digits inside strings, escaped quotes included', () => {
    expect(parseLossless('{"k\\"1.5":"x\\\\","v":"0.1 \\"2.5\\"","w":3.25}')).toEqual({ 'k"1.5': 'x\\', v: '0.1 "2.5"', w: '3.25' });
  });

  it('parses what JSON.parse parses the same way when there is nothing to keep', () => {
    const text = '{"result":{"hash":"00ab","height":7,"tx":[],"ok":true,"none":null},"error":null,"id":1}';
    expect(parseLossless(text)).toEqual(JSON.parse(text));
    expect(() => parseLossless('{"a":')).toThrow(SyntaxError);
  });
});
