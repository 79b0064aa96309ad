import type { ComponentType } from 'preact';
import type { Me } from './api';
import { AddressBook } from './pages/AddressBook';
import { ApiKeys } from './pages/ApiKeys';
import { AuditLog } from './pages/AuditLog';
import { EncryptionKey } from './pages/EncryptionKey';
import { Members } from './pages/Members';
import { Overview } from './pages/Overview';
import { Passkeys } from './pages/Passkeys';
import { Policies } from './pages/Policies';
import { RequestDetail } from './pages/RequestDetail';
import { Sweeps } from './pages/Sweeps';
import { Requests } from './pages/Requests';
import { WebhookDetail } from './pages/WebhookDetail';
import { Webhooks } from './pages/Webhooks';
import { DepositDetail } from './pages/DepositDetail';
import { Transactions } from './pages/Transactions';
import { WalletAddresses } from './pages/WalletAddresses';
import { WithdrawalDetail } from './pages/WithdrawalDetail';
import { Withdrawals } from './pages/Withdrawals';

/** What a page gets: who is signed in and the path's captured parts (ids). */
export interface PageProps {
  me: Me;
  params: string[];
}

export interface Route {
  /** Matched against the whole path; capture groups become `params`. */
  pattern: RegExp;
  page: ComponentType<PageProps>;
  /** Shown in the navigation when set; `match` says which paths mark it current. */
  nav?: { label: string; href: string; match: RegExp };
}

/**
 * Every signed-in page, one line each, in navigation order; the shell picks the first match.
 * A page reads and writes through /console/api, which checks the member's role itself.
 */
export const ROUTES: Route[] = [
  { pattern: /^\/console\/?$/, page: Overview, nav: { label: 'Overview', href: '/console/', match: /^\/console\/?$/ } },
  { pattern: /^\/console\/wallets\/([^/]+)\/addresses\/?$/, page: WalletAddresses },
  {
    pattern: /^\/console\/requests\/?$/,
    page: Requests,
    nav: { label: 'Requests', href: '/console/requests', match: /^\/console\/requests/ },
  },
  { pattern: /^\/console\/requests\/([^/]+)\/?$/, page: ({ me, params }) => <RequestDetail id={params[0]!} me={me} /> },
  {
    pattern: /^\/console\/transactions\/?$/,
    page: Transactions,
    nav: { label: 'Transactions', href: '/console/transactions', match: /^\/console\/transactions/ },
  },
  { pattern: /^\/console\/transactions\/deposits\/([^/]+)\/?$/, page: DepositDetail },
  {
    pattern: /^\/console\/withdrawals\/?$/,
    page: Withdrawals,
    nav: { label: 'Withdrawals', href: '/console/withdrawals', match: /^\/console\/withdrawals/ },
  },
  { pattern: /^\/console\/withdrawals\/([^/]+)\/?$/, page: WithdrawalDetail },
  { pattern: /^\/console\/sweeps\/?$/, page: Sweeps, nav: { label: 'Sweeps', href: '/console/sweeps', match: /^\/console\/sweeps/ } },
  {
    pattern: /^\/console\/webhooks\/?$/,
    page: Webhooks,
    nav: { label: 'Webhooks', href: '/console/webhooks', match: /^\/console\/webhooks/ },
  },
  { pattern: /^\/console\/webhooks\/([^/]+)\/?$/, page: WebhookDetail },
  { pattern: /^\/console\/keys\/?$/, page: ApiKeys, nav: { label: 'API keys', href: '/console/keys', match: /^\/console\/keys/ } },
  {
    pattern: /^\/console\/policies\/?$/,
    page: Policies,
    nav: { label: 'Policies', href: '/console/policies', match: /^\/console\/policies/ },
  },
  {
    pattern: /^\/console\/address-book\/?$/,
    page: AddressBook,
    nav: { label: 'Address book', href: '/console/address-book', match: /^\/console\/address-book/ },
  },
  {
    pattern: /^\/console\/encryption-key\/?$/,
    page: EncryptionKey,
    nav: { label: 'Encryption key', href: '/console/encryption-key', match: /^\/console\/encryption-key/ },
  },
  { pattern: /^\/console\/audit\/?$/, page: AuditLog, nav: { label: 'Audit log', href: '/console/audit', match: /^\/console\/audit/ } },
  { pattern: /^\/console\/members\/?$/, page: Members, nav: { label: 'Members', href: '/console/members', match: /^\/console\/members/ } },
  {
    pattern: /^\/console\/passkeys\/?$/,
    page: Passkeys,
    nav: { label: 'Passkeys', href: '/console/passkeys', match: /^\/console\/passkeys/ },
  },
];
