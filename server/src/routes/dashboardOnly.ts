import { Router } from 'express';
import { BaseError } from '@walletd/core';

/**
 * Account setup is dashboard-only (spec 1, 5.6): API keys, members, password, MFA and the
 * encryption key. Any API key gets 403 here, whatever it may otherwise do. In a self-hosted
 * install the operator's `walletd admin` commands are the dashboard.
 */
export const DASHBOARD_ONLY_PATHS = ['/api-keys', '/members', '/password', '/mfa', '/encryption-key', '/company'];

export function dashboardOnlyRouter(): Router {
  const r = Router();
  for (const p of DASHBOARD_ONLY_PATHS) {
    r.all([p, `${p}/*rest`], () => {
      throw new BaseError('dashboard_only', 'This operation is available only in the dashboard, never to API keys');
    });
  }
  return r;
}
