import { api, errorText, type Me } from '../api';
import { navigate } from '../router';
import { useState } from 'preact/hooks';
import { RequestDetail } from './RequestDetail';
import { Requests } from './Requests';
import { ErrorLine } from '../fields';

const REQUEST = /^\/console\/requests\/([^/]+)\/?$/;

/** The signed-in frame: navigation, who is signed in, sign-out. Pages join the nav as they land. */
export function Shell({ me, path, onSignedOut }: { me: Me; path: string; onSignedOut: () => void }) {
  const [error, setError] = useState<string | null>(null);
  const signOut = async () => {
    try {
      await api('DELETE', '/session');
      onSignedOut();
    } catch (e) {
      setError(errorText(e));
    }
  };
  const go = (to: string) => (e: Event) => {
    e.preventDefault();
    navigate(to);
  };
  const page = () => {
    const request = REQUEST.exec(path);
    if (request) return <RequestDetail id={decodeURIComponent(request[1]!)} me={me} />;
    if (path === '/console/requests' || path === '/console/requests/') return <Requests />;
    return (
      <>
        <h1>Overview</h1>
        <p>Wallets, balances and each chain's indexer health will appear here.</p>
        {!me.mfaEnrolled && (
          <p>
            <a href="/console/mfa" onClick={go('/console/mfa')}>
              Set up an authenticator
            </a>{' '}
            to protect your account.
          </p>
        )}
        <p class="muted">Session ends by {new Date(me.sessionExpiresAt).toLocaleString()} at the latest.</p>
      </>
    );
  };
  return (
    <div class="shell">
      <header>
        <strong class="brand">walletd</strong>
        <nav>
          <a href="/console/" aria-current={path === '/console/' ? 'page' : undefined} onClick={go('/console/')}>
            Overview
          </a>
          <a
            href="/console/requests"
            aria-current={path.startsWith('/console/requests') ? 'page' : undefined}
            onClick={go('/console/requests')}
          >
            Requests
          </a>
        </nav>
        <span class="who" data-testid="member">
          {me.email} <span class="role">{me.role}</span>
        </span>
        <button type="button" class="secondary" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <main>
        <ErrorLine error={error} />
        {page()}
      </main>
    </div>
  );
}
