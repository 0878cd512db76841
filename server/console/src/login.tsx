/** Sign-in: access key + secret key, or OpenID Connect when configured. */
import { useState } from 'preact/hooks';
import { ApiError, api, type SessionView } from './api.js';

/** Props of {@link Login}. */
export interface LoginProps {
  oidc: boolean;
  notice: string;
  onSignedIn: (s: SessionView) => void;
}

/** The sign-in form. */
export function Login({ oidc, notice, onSignedIn }: LoginProps) {
  const [accessKey, setAccessKey] = useState('');
  const [secretKey, setSecretKey] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      onSignedIn(await api<SessionView>('POST', '/login', { accessKey, secretKey }));
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'The server cannot be reached.');
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="center">
      <form class="card login" onSubmit={(e) => void submit(e)} aria-labelledby="login-title">
        <h1 id="login-title">svc console</h1>
        {notice !== '' && <p class="notice" role="status" data-testid="notice">{notice}</p>}
        <label>Access key<input name="accessKey" autocomplete="username" required value={accessKey} onInput={(e) => setAccessKey(e.currentTarget.value)} /></label>
        <label>Secret key<input name="secretKey" type="password" autocomplete="current-password" required value={secretKey} onInput={(e) => setSecretKey(e.currentTarget.value)} /></label>
        {error !== '' && <p class="error" role="alert" data-testid="error">{error}</p>}
        <button type="submit" disabled={busy}>Sign in</button>
        {oidc && <a class="button secondary" href="/svc/console/oidc/login" data-testid="oidc-login">Sign in with OpenID</a>}
      </form>
    </main>
  );
}
