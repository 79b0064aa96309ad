import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, type Me } from './api';
import { AcceptLink } from './pages/AcceptLink';
import { EnrollMfa } from './pages/EnrollMfa';
import { Shell } from './pages/Shell';
import { SignIn } from './pages/SignIn';
import { navigate, usePath } from './router';

const LINK = /^\/console\/links\/([^/]+)\/?$/;

/** Who is signed in decides the page: no session → sign-in, MFA still owed → enrollment, else the shell. */
export function App() {
  const path = usePath();
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const [notice, setNotice] = useState<string | null>(null);

  const refresh = async () => {
    try {
      setMe(await api<Me>('GET', '/me'));
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) setMe(null);
      else throw e;
    }
  };
  useEffect(() => {
    void refresh();
  }, []);

  const link = LINK.exec(path);
  if (link) {
    return (
      <AcceptLink
        token={decodeURIComponent(link[1]!)}
        onDone={() => {
          setNotice('Password set. Sign in to continue.');
          setMe(null);
          navigate('/console/sign-in');
        }}
      />
    );
  }
  if (me === undefined) return <main class="card">Loading…</main>;
  if (me === null) {
    return (
      <SignIn
        notice={notice}
        onSignedIn={async () => {
          setNotice(null);
          await refresh();
          navigate('/console/');
        }}
      />
    );
  }
  if (me.mfaEnrollmentRequired || path === '/console/mfa') {
    const done = async () => {
      await refresh();
      navigate('/console/');
    };
    return <EnrollMfa me={me} onDone={done} />;
  }
  return (
    <Shell
      me={me}
      path={path}
      onSignedOut={() => {
        setMe(null);
        navigate('/console/sign-in');
      }}
    />
  );
}
