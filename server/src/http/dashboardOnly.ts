import type { RequestHandler } from 'express';
import { BaseError } from '@walletd/core';

/**
 * Account setup is dashboard-only (spec 1, 5.6): API keys, members, password, MFA and the
 * encryption key. Any API key gets 403 here, whatever it may otherwise do. In a self-hosted
 * install the operator's `walletd admin` commands are the dashboard.
 */
export const DASHBOARD_ONLY_PATHS = ['/api-keys', '/members', '/password', '/mfa', '/encryption-key', '/company'];

const DASHBOARD_ONLY = new RegExp(`^(?:${DASHBOARD_ONLY_PATHS.map((p) => p.replace(/-/g, '\\-')).join('|')})(?:/.*)?$`, 'i');

/** One test per request (as Express matches routes: any method, any case, any depth below). */
export function dashboardOnly(): RequestHandler {
  return (req, _res, next) => {
    if (DASHBOARD_ONLY.test(req.path)) {
      next(new BaseError('dashboard_only', 'This operation is available only in the dashboard, never to API keys'));
      return;
    }
    next();
  };
}
