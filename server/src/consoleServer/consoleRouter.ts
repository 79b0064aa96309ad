import express, { type Router } from 'express';
import { BaseError } from '@walletd/core';
import type { Common } from '../platform/context';
import { jsonBody } from '../http/body';
import { displayTextHygiene } from '../http/displayText';
import type { Clock } from '../platform/clock';
import { refuseApiKeys, sameOrigin } from '../members/sessions/consoleGuards';
import { mountKeyRoutes } from '../keys/keyRoutes';
import { mountOverviewRoutes } from '../company/overviewRoutes';
import { mountPasskeyRoutes } from '../members/passkeys/passkeyRoutes';
import { mountMemberRoutes } from '../members/memberRoutes';
import { mountRequestRoutes } from '../withdrawals/requests/requestRoutes';
import { mountTransactionRoutes } from '../wallets/transactionRoutes';
import { mountAddressRoutes } from '../wallets/addressRoutes';
import { mountWithdrawalRoutes } from '../withdrawals/withdrawalRoutes';
import { mountReplaceRoutes } from '../withdrawals/replaceRoutes';
import { mountAuditRoutes } from '../company/auditRoutes';
import { mountEncryptionKeyRoutes } from '../keys/encryptionKeyRoutes';
import { mountPolicyRoutes } from '../withdrawals/policies/policyRoutes';
import { mountSweepRoutes } from '../sweeps/sweepRoutes';
import { mountAddressBookRoutes } from '../withdrawals/addressBook/addressBookRoutes';
import { mountApprovalSettingsRoutes } from '../withdrawals/requests/approvalSettingsRoutes';
import { mountWebhookRoutes } from '../webhooks/webhookRoutes';
import { mountSignInRoutes } from '../members/signInRoutes';

/**
 * The members' console API (`/console/api`): the composition root of the console routes. Each
 * feature mounts its own (`mount…Routes` in its folder), sign-in first, in an order the route
 * fixture of test/src/e2e/openapiUnchanged.test.ts pins.
 */
export function consoleRouter(common: Common, clock: Clock): Router {
  const { config } = common;
  const r = express.Router();
  r.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  r.use(refuseApiKeys);
  r.use(sameOrigin);
  r.use(jsonBody(config.server.bodyLimitBytes));
  r.use(displayTextHygiene);

  // Sign-in, sign-out, links, me, MFA and step-up first (members/signInRoutes.ts): the session they open guards the rest.
  const session = mountSignInRoutes(r, common, clock);

  mountPasskeyRoutes(r, common, clock, session);
  mountRequestRoutes(r, common, clock, session);
  mountWebhookRoutes(r, common, clock, session);
  mountKeyRoutes(r, common, clock, session);
  mountOverviewRoutes(r, common, session);
  mountTransactionRoutes(r, common, session);
  mountAddressRoutes(r, common, session);
  mountWithdrawalRoutes(r, common, session);
  mountReplaceRoutes(r, common, clock, session);
  mountPolicyRoutes(r, common, clock, session);
  mountSweepRoutes(r, common, clock, session);
  mountAddressBookRoutes(r, common, clock, session);
  mountApprovalSettingsRoutes(r, common, clock, session);
  mountEncryptionKeyRoutes(r, common, clock, session);
  mountAuditRoutes(r, common, session);
  mountMemberRoutes(r, common, clock, session);

  r.use((_req, _res, next) => next(new BaseError('not_found', 'No such console endpoint')));
  return r;
}
