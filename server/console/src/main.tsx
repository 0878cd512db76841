/** The svc console: sign-in, then Status, object browser and identity pages (issue 6), hash-routed. */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, setSession, whenSessionLost, type SessionView } from './api.js';
import { Browser } from './browser.js';
import { Identity } from './identity.js';
import { Login } from './login.js';
import { Status } from './status.js';
import './styles.css';

type Page = 'status' | 'browser' | 'identity';

function pageOf(hash: string): Page {
  const p = hash.replace(/^#\/?/, '').split('?')[0];
  return p === 'browser' || p === 'identity' ? p : 'status';
}

function App() {
  const [session, setCurrent] = useState<SessionView | null | undefined>(undefined);
  const [oidc, setOidc] = useState(false);
  const [notice, setNotice] = useState('');
  const [page, setPage] = useState<Page>(pageOf(location.hash));

  const adopt = (s: SessionView | null) => {
    setSession(s ?? undefined);
    setCurrent(s);
  };
  useEffect(() => {
    whenSessionLost((message) => {
      setNotice(message);
      adopt(null);
    });
    const onHash = () => setPage(pageOf(location.hash));
    addEventListener('hashchange', onHash);
    void api<{ oidc: boolean }>('GET', '/config').then((c) => setOidc(c.oidc), () => {});
    fetch('/svc/console/api/session', { credentials: 'same-origin' }).then(async (res) => {
      if (res.ok) adopt(await res.json() as SessionView);
      else {
        const body = await res.json().catch(() => ({})) as { code?: string; message?: string };
        // An expired session says so; a first visit just shows the form.
        if (body.code === 'SessionExpired') setNotice(body.message ?? '');
        adopt(null);
      }
    }, () => adopt(null));
    return () => removeEventListener('hashchange', onHash);
  }, []);

  if (session === undefined) return <main class="center"><p>Loading…</p></main>;
  if (session === null) {
    return <Login oidc={oidc} notice={notice} onSignedIn={(s) => { setNotice(''); adopt(s); }} />;
  }
  const logout = async () => {
    try {
      await api('POST', '/logout');
    } finally {
      adopt(null);
    }
  };
  const link = (p: Page, label: string) => (
    <a href={`#/${p}`} class={page === p ? 'active' : ''} aria-current={page === p ? 'page' : undefined}>{label}</a>
  );
  return (
    <div class="shell">
      <header>
        <span class="brand">svc console</span>
        <nav aria-label="Pages">{link('status', 'Status')}{link('browser', 'Buckets')}{link('identity', 'Identity')}</nav>
        <span class="who" data-testid="user">{session.user}{session.kind === 'oidc' ? ' (OpenID)' : ''}</span>
        <button type="button" onClick={() => void logout()}>Sign out</button>
      </header>
      <main>
        {page === 'status' && <Status />}
        {page === 'browser' && <Browser />}
        {page === 'identity' && <Identity />}
      </main>
    </div>
  );
}

render(<App />, document.getElementById('app')!);
