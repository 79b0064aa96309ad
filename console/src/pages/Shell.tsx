import { api, errorText, type Me } from '../api';
import { navigate } from '../router';
import { useState } from 'preact/hooks';

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
  return (
    <div class="shell">
      <header>
        <strong class="brand">walletd</strong>
        <nav>
          <a href="/console/" aria-current={path === '/console/' ? 'page' : undefined} onClick={go('/console/')}>
            Overview
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
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
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
      </main>
    </div>
  );
}
