import type { PageProps } from '../routes';
import { navigate } from '../router';

/** The landing page once signed in. */
export function Overview({ me }: PageProps) {
  const go = (to: string) => (e: Event) => {
    e.preventDefault();
    navigate(to);
  };
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
}
