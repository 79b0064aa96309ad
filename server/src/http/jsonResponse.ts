import type { Express, Response } from 'express';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * `res.json` for the API's answers, writing exactly what Express's would (the same body, the same
 * `Content-Type: application/json; charset=utf-8` and `Content-Length`) without Express's general
 * path through `res.send`: the content type looked up in the MIME table, then parsed and formatted
 * again to add the charset, the ETag function asked for, the body copied into a Buffer past 1,000
 * characters, the freshness check. Why: `res.json` ends every API request (bench/README.md, `api`).
 *
 * Every case where Express's answer could differ goes to Express's own `res.json`: a content type
 * or transfer encoding already set, a 204/205/304 status, a conditional request (Express answers
 * `If-None-Match: *` with a 304), a value JSON cannot write (`undefined`), and an app whose JSON or
 * ETag settings are not the API's (checked once, here).
 */
export function fastJson(app: Express): void {
  const original = app.response.json;
  const defaults =
    app.get('etag') === false &&
    !app.get('json escape') &&
    app.get('json replacer') === undefined &&
    (app.get('json spaces') === 0 || app.get('json spaces') === undefined);
  if (!defaults) return;
  fast.add(app);
  app.response.json = function json(this: Response, body: unknown) {
    if (!plain(this)) return original.call(this, body);
    const text = JSON.stringify(body) as string | undefined;
    if (text === undefined) return original.call(this, body);
    write(this, text);
    return this;
  };
}

/**
 * Answers `text`, a body already written as JSON (an answer kept between requests), exactly as
 * `res.json(JSON.parse(text))` would: through that where fastJson's path is not the whole story.
 */
export function sendJsonText(res: Response, text: string): void {
  if (fast.has(res.app) && plain(res)) write(res, text);
  else res.json(JSON.parse(text));
}

/** Apps whose `res.json` is fastJson's. */
const fast = new WeakSet<object>();

/** Whether Express's answer for this response is exactly `write`'s (see fastJson). */
function plain(res: Response): boolean {
  const status = res.statusCode;
  const headers = res.req.headers;
  return !(
    status === 204 ||
    status === 205 ||
    status === 304 ||
    res.hasHeader('Content-Type') ||
    res.hasHeader('Transfer-Encoding') ||
    headers['if-none-match'] !== undefined ||
    headers['if-modified-since'] !== undefined
  );
}

function write(res: Response, text: string): void {
  res.setHeader('Content-Type', JSON_TYPE);
  res.setHeader('Content-Length', Buffer.byteLength(text));
  if (res.req.method === 'HEAD') res.end();
  else res.end(text, 'utf8');
}
