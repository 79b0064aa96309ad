import type { ComponentType } from 'preact';
import type { Me } from './api';
import { Members } from './pages/Members';
import { Overview } from './pages/Overview';
import { RequestDetail } from './pages/RequestDetail';
import { Requests } from './pages/Requests';

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
  {
    pattern: /^\/console\/requests\/?$/,
    page: Requests,
    nav: { label: 'Requests', href: '/console/requests', match: /^\/console\/requests/ },
  },
  { pattern: /^\/console\/requests\/([^/]+)\/?$/, page: ({ me, params }) => <RequestDetail id={params[0]!} me={me} /> },
  { pattern: /^\/console\/members\/?$/, page: Members, nav: { label: 'Members', href: '/console/members', match: /^\/console\/members/ } },
];
