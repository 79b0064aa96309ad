import type { RequestHandler } from 'express';
import { BaseError } from '@walletd/core';

/**
 * Fields people read in the console and the API's listings (wallet, key, policy and webhook names,
 * address labels, withdrawal notes), wherever they nest in a request body: the one list a new
 * display field joins.
 */
export const DISPLAY_FIELDS: ReadonlySet<string> = new Set(['name', 'label', 'note', 'description', 'displayName']);

/**
 * Bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069) make "payroll" show as
 * another name or reorder an address inside a label; control characters hide or rewrite text in a
 * terminal or a log viewer. Refused in every display field; a note (free text shown to approvers)
 * keeps line breaks and tabs.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what this refuses.
const SPOOFING = /[\u0000-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: as above, less tab and line breaks.
const SPOOFING_MULTILINE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/;
const MULTILINE: ReadonlySet<string> = new Set(['note', 'description']);

/** The path of the first display field that would spoof its display, or null. An explicit stack, as textHygiene. */
export function findSpoofingText(root: unknown, rootPath = 'body'): string | null {
  const todo: [unknown, string][] = [[root, rootPath]];
  for (let next = todo.pop(); next; next = todo.pop()) {
    const [value, path] = next;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) todo.push([value[i], `${path}[${i}]`]);
    } else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        if (typeof v === 'string' && DISPLAY_FIELDS.has(k) && (MULTILINE.has(k) ? SPOOFING_MULTILINE : SPOOFING).test(v)) {
          return `${path}.${k}`;
        }
        if (v && typeof v === 'object') todo.push([v, `${path}.${k}`]);
      }
    }
  }
  return null;
}

/** 400 naming the field, before any handler stores a name that would display as something else. */
export const displayTextHygiene: RequestHandler = (req, _res, next) => {
  const where = findSpoofingText(req.body);
  if (!where) {
    next();
    return;
  }
  next(
    new BaseError(
      'validation_failed',
      `${where} contains a control character or a bidirectional override (U+202A–U+202E, U+2066–U+2069); names, labels and notes must display as typed`,
    ),
  );
};
