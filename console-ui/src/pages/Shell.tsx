import { useState } from 'preact/hooks';
import { api, errorText, type Me } from '../api';
import { ErrorLine } from '../fields';
import { navigate } from '../router';
import { ROUTES } from '../routes';

/** The signed-in frame: navigation, who is signed in, sign-out; the page comes from ROUTES. */
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
    for (const route of ROUTES) {
      const m = route.pattern.exec(path);
      if (m) return <route.page me={me} params={m.slice(1).map((p) => decodeURIComponent(p ?? ''))} />;
    }
    return (
      <>
        <h1>Not found</h1>
        <p>
          No console page at this address.{' '}
          <a href="/console/" onClick={go('/console/')}>
            Back to the overview
          </a>
          .
        </p>
      </>
    );
  };
  return (
    <div class="shell">
      <header>
        <strong class="brand">walletd</strong>
        <nav>
          {ROUTES.filter((r) => r.nav).map(({ nav }) => (
            <a key={nav!.href} href={nav!.href} aria-current={nav!.match.test(path) ? 'page' : undefined} onClick={go(nav!.href)}>
              {nav!.label}
            </a>
          ))}
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
