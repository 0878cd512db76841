/**
 * The object browser: buckets (create, delete, versioning), objects by prefix page by page, drag-and-drop upload
 * with progress (the browser streams the File, the server pipes it into storage), download, delete, share link,
 * metadata.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, currentCsrf, errorOf, seg } from './api.js';
import { bytes, when } from './format.js';

interface Bucket { name: string; created: string }
interface Entry { key: string; size: number; lastModified: string; etag: string }
interface Listing { prefixes: string[]; objects: Entry[]; nextToken: string | null }
interface Upload { id: number; name: string; loaded: number; total: number; error?: string; done?: boolean }

let uploadIds = 0;

const SHARE_CHOICES = [['1 hour', 3600], ['1 day', 86400], ['7 days', 604800]] as const;

function message(err: unknown): string {
  return err instanceof ApiError ? err.message : 'The server cannot be reached.';
}

/** Uploads one file with progress: XMLHttpRequest reports upload progress, fetch does not. */
function upload(bucket: string, key: string, file: File, progress: (loaded: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', `/svc/console/api/buckets/${seg(bucket)}/upload?key=${encodeURIComponent(key)}`);
    xhr.setRequestHeader('x-csrf-token', currentCsrf());
    xhr.setRequestHeader('content-type', file.type || 'application/octet-stream');
    xhr.upload.onprogress = (e) => progress(e.loaded);
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) resolve();
      else void errorOf(new Response(xhr.responseText, { status: xhr.status, statusText: xhr.statusText })).then(reject);
    };
    xhr.onerror = () => reject(new ApiError(0, 'NetworkError', 'The upload was interrupted.'));
    xhr.send(file);
  });
}

/** See the module comment. */
export function Browser() {
  const [buckets, setBuckets] = useState<Bucket[]>([]);
  const [bucket, setBucket] = useState('');
  const [prefix, setPrefix] = useState('');
  const [listing, setListing] = useState<Listing>({ prefixes: [], objects: [], nextToken: null });
  const [versioning, setVersioning] = useState('');
  const [error, setError] = useState('');
  const [newBucket, setNewBucket] = useState('');
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [details, setDetails] = useState<Record<string, unknown> | undefined>(undefined);
  const [share, setShare] = useState<{ key: string; url?: string; expires: number } | undefined>(undefined);
  const [dragging, setDragging] = useState(false);

  const loadBuckets = async () => {
    try {
      const r = await api<{ buckets: Bucket[] }>('GET', '/buckets');
      setBuckets(r.buckets);
      setError('');
    } catch (err) {
      setError(message(err));
    }
  };
  const list = async (b: string, p: string, token?: string) => {
    try {
      const q = `prefix=${encodeURIComponent(p)}${token !== undefined ? `&token=${encodeURIComponent(token)}` : ''}`;
      const r = await api<Listing>('GET', `/buckets/${seg(b)}/objects?${q}`);
      setListing((old) => token !== undefined ? { prefixes: [...old.prefixes, ...r.prefixes], objects: [...old.objects, ...r.objects], nextToken: r.nextToken } : r);
      setError('');
    } catch (err) {
      setError(message(err));
    }
  };
  const open = (b: string, p = '') => {
    setBucket(b);
    setPrefix(p);
    setDetails(undefined);
    setShare(undefined);
    setListing({ prefixes: [], objects: [], nextToken: null });
    void list(b, p);
    void api<{ status: string }>('GET', `/buckets/${seg(b)}/versioning`).then((r) => setVersioning(r.status), () => setVersioning(''));
  };
  useEffect(() => { void loadBuckets(); }, []);

  const act = async (fn: () => Promise<unknown>) => {
    try {
      await fn();
      setError('');
    } catch (err) {
      setError(message(err));
    }
  };
  const createBucket = (e: Event) => {
    e.preventDefault();
    void act(async () => {
      await api('POST', '/buckets', { name: newBucket });
      setNewBucket('');
      await loadBuckets();
    });
  };
  const deleteBucket = (b: string) => {
    if (!confirm(`Delete the bucket ${b}? It must be empty.`)) return;
    void act(async () => {
      await api('DELETE', `/buckets/${seg(b)}`);
      if (bucket === b) setBucket('');
      await loadBuckets();
    });
  };
  const toggleVersioning = () => void act(async () => {
    const r = await api<{ status: string }>('PUT', `/buckets/${seg(bucket)}/versioning`, { enabled: versioning !== 'enabled' });
    setVersioning(r.status);
  });
  const uploadFiles = (files: FileList | null) => {
    if (files === null || bucket === '') return;
    for (const file of Array.from(files)) {
      const id = ++uploadIds;
      setUploads((u) => [...u, { id, name: file.name, loaded: 0, total: file.size }]);
      const update = (patch: Partial<Upload>) => setUploads((u) => u.map((x) => x.id === id ? { ...x, ...patch } : x));
      upload(bucket, prefix + file.name, file, (loaded) => update({ loaded })).then(
        () => { update({ loaded: file.size, done: true }); void list(bucket, prefix); },
        (err: unknown) => update({ error: message(err) }),
      );
    }
  };
  const remove = (key: string) => {
    if (!confirm(`Delete ${key}?`)) return;
    void act(async () => {
      await api('DELETE', `/buckets/${seg(bucket)}/object?key=${encodeURIComponent(key)}`);
      await list(bucket, prefix);
    });
  };
  const showDetails = (key: string) => void act(async () => {
    setDetails(await api<Record<string, unknown>>('GET', `/buckets/${seg(bucket)}/object?key=${encodeURIComponent(key)}`));
  });
  const makeShare = () => void act(async () => {
    if (share === undefined) return;
    const r = await api<{ url: string }>('POST', `/buckets/${seg(bucket)}/share`, { key: share.key, expiresSeconds: share.expires });
    setShare({ ...share, url: r.url });
  });

  const crumbs = prefix.split('/').filter((s) => s !== '');
  return (
    <section class="browser">
      <aside class="buckets">
        <h1>Buckets</h1>
        <form onSubmit={createBucket} class="inline">
          <input aria-label="New bucket name" placeholder="new-bucket" value={newBucket} onInput={(e) => setNewBucket(e.currentTarget.value)} required />
          <button type="submit">Create</button>
        </form>
        <ul data-testid="bucket-list">
          {buckets.map((b) => (
            <li key={b.name} class={b.name === bucket ? 'active' : ''}>
              <button type="button" class="link" data-testid="bucket" onClick={() => open(b.name)}>{b.name}</button>
              <button type="button" class="small danger" aria-label={`Delete bucket ${b.name}`} onClick={() => deleteBucket(b.name)}>×</button>
            </li>
          ))}
        </ul>
        {buckets.length === 0 && error === '' && <p class="muted">No buckets you may list.</p>}
      </aside>
      <div class="objects">
        {error !== '' && <p class="error" role="alert" data-testid="error">{error}</p>}
        {bucket === '' ? <p class="muted">Choose a bucket.</p> : (
          <>
            <div class="title-row">
              <nav class="crumbs" aria-label="Prefix">
                <button type="button" class="link" onClick={() => open(bucket)}>{bucket}</button>
                {crumbs.map((c, i) => (
                  <span key={i}> / <button type="button" class="link" onClick={() => open(bucket, `${crumbs.slice(0, i + 1).join('/')}/`)}>{c}</button></span>
                ))}
              </nav>
              {versioning !== '' && (
                <label class="toggle"><input type="checkbox" checked={versioning === 'enabled'} onChange={toggleVersioning} data-testid="versioning" /> Versioning</label>
              )}
            </div>
            <label
              class={`dropzone ${dragging ? 'over' : ''}`}
              onDragOver={(e) => { e.preventDefault(); setDragging(true); }}
              onDragLeave={() => setDragging(false)}
              onDrop={(e) => { e.preventDefault(); setDragging(false); uploadFiles(e.dataTransfer?.files ?? null); }}
            >
              Drop files here or <span class="link">choose files</span>
              <input type="file" multiple data-testid="upload-input" class="visually-hidden" onChange={(e) => uploadFiles(e.currentTarget.files)} />
            </label>
            {uploads.length > 0 && (
              <ul class="uploads" data-testid="uploads">
 {uploads.map((u) => (
                  <li key={u.id} data-testid="upload" data-done={u.done === true ? 'true' : 'false'}>
                    {u.name} <progress max={u.total || 1} value={u.loaded} aria-label={`Upload of ${u.name}`} />
                    {u.error !== undefined ? <span class="error">{u.error}</span> : u.done === true ? ' done' : ` ${Math.floor((u.loaded / (u.total || 1)) * 100)}%`}
                  </li>
                ))}
              </ul>
            )}
            <div class="scroll">
              <table data-testid="objects">
                <thead><tr><th>Name</th><th>Size</th><th>Modified</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
                <tbody>
                  {listing.prefixes.map((p) => (
                    <tr key={p} data-testid="prefix-row">
                      <td colSpan={4}><button type="button" class="link" onClick={() => open(bucket, p)}>{p.slice(prefix.length)}</button></td>
                    </tr>
                  ))}
                  {listing.objects.map((o) => (
                    <tr key={o.key} data-testid="object-row" data-key={o.key}>
                      <td>{o.key.slice(prefix.length)}</td>
                      <td>{bytes(o.size)}</td>
                      <td>{when(o.lastModified)}</td>
                      <td class="actions">
                        <a class="button small" href={`/svc/console/api/buckets/${seg(bucket)}/download?key=${encodeURIComponent(o.key)}`} download data-testid="download">Download</a>
                        <button type="button" class="small" onClick={() => setShare({ key: o.key, expires: 3600 })}>Share</button>
                        <button type="button" class="small" onClick={() => showDetails(o.key)}>Info</button>
                        <button type="button" class="small danger" onClick={() => remove(o.key)}>Delete</button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {listing.nextToken !== null && (
              <button type="button" data-testid="more" onClick={() => void list(bucket, prefix, listing.nextToken!)}>Load more</button>
            )}
            {share !== undefined && (
              <div class="card" role="dialog" aria-label="Share link">
                <h2>Share {share.key}</h2>
                <label>Valid for{' '}
                  <select value={share.expires} onChange={(e) => setShare({ key: share.key, expires: Number(e.currentTarget.value) })}>
                    {SHARE_CHOICES.map(([label, s]) => <option key={s} value={s}>{label}</option>)}
                  </select>
                </label>
                <button type="button" onClick={makeShare}>Create link</button>
                {share.url !== undefined && <input readOnly value={share.url} data-testid="share-url" aria-label="Share link" onFocus={(e) => e.currentTarget.select()} />}
                <button type="button" class="secondary" onClick={() => setShare(undefined)}>Close</button>
              </div>
            )}
            {details !== undefined && (
              <div class="card" role="dialog" aria-label="Object metadata" data-testid="details">
                <h2>{String(details.key)}</h2>
                <dl>
                  {Object.entries(details).filter(([k]) => k !== 'key').map(([k, v]) => (
                    <><dt key={`${k}-t`}>{k}</dt><dd key={`${k}-d`}>{typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}</dd></>
                  ))}
                </dl>
                <button type="button" class="secondary" onClick={() => setDetails(undefined)}>Close</button>
              </div>
            )}
          </>
        )}
      </div>
    </section>
  );
}
