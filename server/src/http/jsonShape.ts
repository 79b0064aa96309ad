import { BaseError } from '@walletd/core';

/**
 * The deepest nesting of objects and arrays a request body may have. The deepest body the API
 * defines is 3 levels (`outputs[].amount`); the rest is room. A bound keeps every later walk of
 * the body (hygiene, validation, hashing) far from the stack's limit.
 */
export const MAX_BODY_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** One open object (its keys so far) or array (its element index), and where it sits. */
interface Frame {
  keys: Set<string> | null;
  index: number;
  lastKey: string;
  path: string;
}

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** Index of the quote closing the string opened at `open`, or -1. */
function closingQuote(text: string, open: number): number {
  let at = text.indexOf('"', open + 1);
  while (at >= 0) {
    let slashes = 0;
    for (let j = at - 1; text.charCodeAt(j) === BACKSLASH; j--) slashes++;
    if (slashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return -1;
}

const childPath = (parent: Frame | undefined): string =>
  !parent ? 'body' : parent.keys ? `${parent.path}.${parent.lastKey}` : `${parent.path}[${parent.index}]`;

/**
 * What JSON.parse lets through silently, refused before a handler sees the body: nesting deeper
 * than MAX_BODY_DEPTH and an object naming one key twice (JSON.parse keeps the last, so
 * `"amount":"0.0001","amount":"5"` would pay 5 to a body that a reviewer or a proxy reads as
 * 0.0001; RFC 7493 I-JSON forbids it). One pass over the text, no recursion: the body's shape
 * cannot exhaust the stack. Text that is not JSON passes (the parser names that).
 */
export function jsonShapeProblem(text: string): BaseError | null {
  const stack: Frame[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = closingQuote(text, i);
      if (end < 0) return null;
      const top = stack[stack.length - 1];
      if (top?.keys) {
        let next = end + 1;
        while (isSpace(text.charCodeAt(next))) next++;
        if (text.charCodeAt(next) === COLON) {
          let key = text.slice(i + 1, end);
          if (key.includes('\\')) {
            try {
              // Escapes name the same key two ways ("a" and "\u0061"): compare what they mean.
              key = JSON.parse(text.slice(i, end + 1)) as string;
            } catch {
              return null;
            }
          }
          if (top.keys.has(key))
            return new BaseError(
              'malformed_json',
              `Request body repeats the key "${key}" in ${top.path}; each key may appear once in an object`,
            );
          top.keys.add(key);
          top.lastKey = key;
        }
      }
      i = end;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (stack.length >= MAX_BODY_DEPTH)
        return new BaseError('bad_request', `Request body nests objects and arrays deeper than ${MAX_BODY_DEPTH} levels`);
      const path = childPath(stack[stack.length - 1]);
      stack.push({ keys: c === OPEN_OBJECT ? new Set() : null, index: 0, lastKey: '', path });
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      stack.pop();
    } else if (c === COMMA) {
      const top = stack[stack.length - 1];
      if (top) top.index++;
    }
  }
  return null;
}
