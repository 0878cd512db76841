/** Identity pages for administrators: users, policies (JSON editor with validation), service accounts. */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, seg } from './api.js';

interface User { accessKey: string; status: 'enabled' | 'disabled'; policies: string[] }
interface Policy { name: string; policy: string; builtIn: boolean }
interface ServiceAccount { accessKey: string; parent: string; status: string; expiration?: string }

type Tab = 'users' | 'policies' | 'service-accounts';

function message(err: unknown): string {
  return err instanceof ApiError ? err.message : 'The server cannot be reached.';
}

const TEMPLATE = JSON.stringify({
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Action: ['s3:GetObject', 's3:ListBucket'], Resource: ['arn:aws:s3:::example', 'arn:aws:s3:::example/*'] }],
}, null, 2);

/** Checks a policy document before sending it: the server's parser has the last word. */
function checkJson(text: string): string {
  try {
    const doc = JSON.parse(text) as unknown;
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return 'A policy is a JSON object.';
    if (!('Statement' in doc)) return 'A policy needs a "Statement".';
    return '';
  } catch (err) {
    return `Not valid JSON: ${(err as Error).message}`;
  }
}

/** See the module comment. */
export function Identity() {
  const [tab, setTab] = useState<Tab>('users');
  const [error, setError] = useState('');
  const [users, setUsers] = useState<User[]>([]);
  const [policies, setPolicies] = useState<Policy[]>([]);
  const [accounts, setAccounts] = useState<ServiceAccount[]>([]);
  const [form, setForm] = useState({ accessKey: '', secretKey: '', policies: '' });
  const [editor, setEditor] = useState({ name: '', text: TEMPLATE });
  const [created, setCreated] = useState<{ accessKey: string; secretKey: string } | undefined>(undefined);

  const load = async (t: Tab) => {
    try {
      if (t === 'users') setUsers((await api<{ users: User[] }>('GET', '/iam/users')).users);
      if (t === 'policies') setPolicies((await api<{ policies: Policy[] }>('GET', '/iam/policies')).policies);
      if (t === 'service-accounts') setAccounts((await api<{ serviceAccounts: ServiceAccount[] }>('GET', '/iam/service-accounts')).serviceAccounts);
      setError('');
    } catch (err) {
      setError(message(err));
    }
  };
  useEffect(() => { void load(tab); }, [tab]);
  const act = async (fn: () => Promise<unknown>) => {
    try {
      await fn();
      setError('');
      await load(tab);
    } catch (err) {
      setError(message(err));
    }
  };
  const jsonProblem = checkJson(editor.text);

  const tabButton = (t: Tab, label: string) => (
    <button type="button" role="tab" aria-selected={tab === t} class={tab === t ? 'active' : ''} onClick={() => setTab(t)}>{label}</button>
  );
  return (
    <section>
      <h1>Identity</h1>
      <div role="tablist" class="tabs">{tabButton('users', 'Users')}{tabButton('policies', 'Policies')}{tabButton('service-accounts', 'Service accounts')}</div>
      {error !== '' && <p class="error" role="alert" data-testid="error">{error}</p>}
      {tab === 'users' && (
        <>
          <form class="inline" onSubmit={(e) => { e.preventDefault(); void act(() => api('POST', '/iam/users', { accessKey: form.accessKey, secretKey: form.secretKey, policies: form.policies.split(',').map((p) => p.trim()).filter((p) => p !== '') })); }}>
            <input aria-label="Access key" placeholder="access key" value={form.accessKey} onInput={(e) => setForm({ ...form, accessKey: e.currentTarget.value })} required />
            <input aria-label="Secret key" placeholder="secret key" type="password" value={form.secretKey} onInput={(e) => setForm({ ...form, secretKey: e.currentTarget.value })} required />
            <input aria-label="Policies" placeholder="policies, comma separated" value={form.policies} onInput={(e) => setForm({ ...form, policies: e.currentTarget.value })} />
            <button type="submit">Add user</button>
          </form>
          <div class="scroll"><table data-testid="users">
            <thead><tr><th>Access key</th><th>Status</th><th>Policies</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>{users.map((u) => (
              <tr key={u.accessKey} data-testid="user-row">
                <td>{u.accessKey}</td><td>{u.status}</td><td>{u.policies.join(', ') || '—'}</td>
                <td class="actions">
                  <button type="button" class="small" onClick={() => void act(() => api('PUT', `/iam/users/${seg(u.accessKey)}/status`, { status: u.status === 'enabled' ? 'disabled' : 'enabled' }))}>{u.status === 'enabled' ? 'Disable' : 'Enable'}</button>
                  <button type="button" class="small danger" onClick={() => { if (confirm(`Delete ${u.accessKey}?`)) void act(() => api('DELETE', `/iam/users/${seg(u.accessKey)}`)); }}>Delete</button>
                </td>
              </tr>
            ))}</tbody>
          </table></div>
        </>
      )}
      {tab === 'policies' && (
        <>
          <form class="card" onSubmit={(e) => { e.preventDefault(); if (jsonProblem === '') void act(() => api('PUT', `/iam/policies/${seg(editor.name)}`, { policy: editor.text })); }}>
            <label>Policy name<input value={editor.name} onInput={(e) => setEditor({ ...editor, name: e.currentTarget.value })} required /></label>
            <label>Document<textarea rows={12} spellcheck={false} class="code" value={editor.text} onInput={(e) => setEditor({ ...editor, text: e.currentTarget.value })} aria-invalid={jsonProblem !== ''} /></label>
            {jsonProblem !== '' && <p class="error" data-testid="json-error">{jsonProblem}</p>}
            <button type="submit" disabled={jsonProblem !== ''}>Save policy</button>
          </form>
          <div class="scroll"><table data-testid="policies">
            <thead><tr><th>Name</th><th>Kind</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>{policies.map((p) => (
              <tr key={p.name}>
                <td>{p.name}</td><td>{p.builtIn ? 'built-in' : 'custom'}</td>
                <td class="actions">
                  <button type="button" class="small" onClick={() => setEditor({ name: p.name, text: JSON.stringify(JSON.parse(p.policy), null, 2) })}>Edit</button>
                  {!p.builtIn && <button type="button" class="small danger" onClick={() => { if (confirm(`Delete ${p.name}?`)) void act(() => api('DELETE', `/iam/policies/${seg(p.name)}`)); }}>Delete</button>}
                </td>
              </tr>
            ))}</tbody>
          </table></div>
        </>
      )}
      {tab === 'service-accounts' && (
        <>
          <button type="button" onClick={() => void act(async () => setCreated(await api<{ accessKey: string; secretKey: string }>('POST', '/iam/service-accounts', {})))}>Create service account for me</button>
          {created !== undefined && (
            <p class="notice" data-testid="created-account">Access key <code>{created.accessKey}</code>, secret key <code>{created.secretKey}</code> — shown only this once.</p>
          )}
          <div class="scroll"><table data-testid="service-accounts">
            <thead><tr><th>Access key</th><th>Parent</th><th>Status</th><th>Expires</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>{accounts.map((a) => (
              <tr key={a.accessKey}>
                <td>{a.accessKey}</td><td>{a.parent}</td><td>{a.status}</td><td>{a.expiration ?? 'never'}</td>
                <td class="actions"><button type="button" class="small danger" onClick={() => { if (confirm(`Delete ${a.accessKey}?`)) void act(() => api('DELETE', `/iam/service-accounts/${seg(a.accessKey)}`)); }}>Delete</button></td>
              </tr>
            ))}</tbody>
          </table></div>
        </>
      )}
    </section>
  );
}
