import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { type Router } from 'express';
import { BaseError, type Logger } from '@walletd/core';

/** Where `npm run build` puts the console's pages (the `console-ui` workspace, built by Vite). */
export const CONSOLE_ASSETS_DIR = join(__dirname, '..', '..', '..', 'console-ui', 'dist');

/**
 * The console's built pages at /console/: hashed files under assets/ (cached for good, a new
 * build has new names), and index.html for every other path so client routes such as
 * /console/links/TOKEN load the app. A missing asset is a 404, never index.html under a script's name.
 */
export function consoleAssets(logger: Logger, dir: string = CONSOLE_ASSETS_DIR): Router {
  const r = express.Router();
  const index = join(dir, 'index.html');
  const built = existsSync(index);
  if (!built) logger.warn({ dir }, "the console's pages are not built (npm run build): /console/ answers 503");
  r.get('/', (req, res, next) => (req.originalUrl === '/console' ? res.redirect(301, '/console/') : next()));
  r.use(
    '/assets',
    express.static(join(dir, 'assets'), { index: false, redirect: false, immutable: true, maxAge: '365d' }),
    (_req, _res, next) => next(new BaseError('not_found', 'No such console file')),
  );
  r.get('/{*path}', (_req, res) => {
    if (!built) {
      res.status(503).type('text/plain').send("The console's pages are not built: run npm run build\n");
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index);
  });
  return r;
}
