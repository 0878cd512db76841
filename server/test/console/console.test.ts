/**
 * Issue 6 "must show" on a single server, in headless Chromium: 1 (sign in → the Status page shows what
 * `GET /svc/admin/v3/info` reports), 3 (a 50 MiB upload through the browser, listed, downloaded, same SHA-256,
 * server RSS growing far less than the file), 5 (wrong keys, expired session, missing permission: clear messages,
 * right HTTP status, no stack trace), 6 (SVC_CONSOLE_ENABLE=false opens nothing), the bundle budget and the
 * security headers. Screenshots go to ARTIFACTS.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, linkSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { deriveConsoleKeys, issueSession } from '../../src/http/console/index.js';
import { adminCall } from '../admin/admin-client.js';
import { startSvc, type SvcProcess } from '../helpers/svc-process.js';
import { ARTIFACTS, CONSOLE_DIST, ensureConsoleBuilt, launchBrowser, shot, signIn } from './helpers/browser.js';

let svc: SvcProcess;
let browser: Browser;
let consoleUrl: string;

before(async () => {
  ensureConsoleBuilt();
  svc = await startSvc({ drives: 4 });
  consoleUrl = svc.consoleUrl!;
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await svc?.stop();
  svc?.cleanup();
  process.stdout.write(`# console screenshots: ${ARTIFACTS}\n`);
});

interface Info {
  servers: unknown[];
  backend: { onlineDrives: number };
  drives: unknown[];
  usage: { usedBytes: number; totalBytes: number };
}

async function adminInfo(): Promise<Info> {
  const r = await adminCall(svc.url, svc.accessKey, svc.secretKey, 'GET', 'info');
  assert.equal(r.status, 200);
  return r.json as Info;
}

async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? 0) * 1024;
}

test('1: signed in with keys, the Status page shows the numbers of GET /svc/admin/v3/info, live', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  try {
    await signIn(page, consoleUrl, svc.accessKey, svc.secretKey);
    await page.getByTestId('cluster-status').waitFor();
    await page.getByTestId('live').filter({ hasText: 'live' }).waitFor();
    // Used bytes follow the host file system, which other processes write to: compare until one report agrees.
    const deadline = Date.now() + 20_000;
    let last = '';
    for (;;) {
      const shown = {
        servers: await page.getByTestId('servers-count').textContent(),
        drives: await page.getByTestId('drives-online').textContent(),
        used: await page.getByTestId('usage-used').getAttribute('data-bytes'),
        total: await page.getByTestId('usage-total').getAttribute('data-bytes'),
        status: await page.getByTestId('cluster-status').textContent(),
      };
      const info = await adminInfo();
      const expected = {
        servers: String(info.servers.length), drives: `${info.backend.onlineDrives}/${info.drives.length}`,
        used: String(info.usage.usedBytes), total: String(info.usage.totalBytes), status: 'online',
      };
      last = JSON.stringify({ shown, expected });
      if (JSON.stringify(shown) === JSON.stringify(expected)) break;
      assert.ok(Date.now() < deadline, `the Status page never matched the admin info: ${last}`);
      await page.waitForTimeout(500);
    }
    assert.equal(await page.getByTestId('drive-row').count(), 4);
    await shot(page, '1-status');
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await phone.context().addCookies(await page.context().cookies());
    await phone.goto(`${consoleUrl}/svc/console/#/status`);
    await phone.getByTestId('cluster-status').waitFor();
    await shot(phone, '1-status-phone');
    await phone.close();
  } finally {
    await page.close();
  }
});

test('3: a 50 MiB upload through the browser is listed, downloads with the same SHA-256, and RSS stays flat', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-console-upload-'));
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  try {
    const file = join(dir, 'big.bin');
    const chunk = randomBytes(1024 * 1024);
    writeFileSync(file, Buffer.concat(Array.from({ length: 50 }, (_, i) => { const c = Buffer.from(chunk); c.writeUInt32BE(i, 0); return c; })));
    const expected = await sha256File(file);
    await signIn(page, consoleUrl, svc.accessKey, svc.secretKey);
    await page.goto(`${consoleUrl}/svc/console/#/browser`);
    await page.getByLabel('New bucket name').fill('uploads');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByTestId('bucket').filter({ hasText: 'uploads' }).click();
    // Warm-up: the first large transfers grow the heap and the allocator's pools once (about 30 MiB, whatever the
    // size), and the first large download starts the GET's bitrot-hash worker thread (bitrot/hash-offload.ts) and fills
    // the read-buffer pool; the measured transfers after them show what one more file costs, which buffering would
    // make >= 50 MiB.
    const warm = join(dir, 'warmup.bin');
    linkSync(file, warm);
    await page.getByTestId('upload-input').setInputFiles(warm);
    const warmRow = page.locator('[data-testid=object-row][data-key="warmup.bin"]');
    await warmRow.waitFor({ timeout: 300_000 });
    const [warmDownload] = await Promise.all([page.waitForEvent('download'), warmRow.getByTestId('download').click()]);
    await warmDownload.saveAs(join(dir, 'warmup-downloaded.bin'));
    const pid = svc.proc.pid!;
    const baseline = rssBytes(pid);
    let peak = baseline;
    const sampler = setInterval(() => { peak = Math.max(peak, rssBytes(pid)); }, 100);
    try {
      await page.getByTestId('upload-input').setInputFiles(file);
      await page.locator('[data-testid=upload][data-done=true]').nth(1).waitFor({ timeout: 300_000 });
      const row = page.locator('[data-testid=object-row][data-key="big.bin"]');
      await row.waitFor();
      assert.match(await row.textContent() ?? '', /50\.0 MiB/);
      await shot(page, '3-uploaded');
      const [download] = await Promise.all([page.waitForEvent('download'), row.getByTestId('download').click()]);
      const saved = join(dir, 'downloaded.bin');
      await download.saveAs(saved);
      assert.equal(await sha256File(saved), expected);
    } finally {
      clearInterval(sampler);
    }
    const growth = peak - baseline;
    process.stdout.write(`# server RSS: ${(baseline / 2 ** 20).toFixed(1)} MiB before, peak ${(peak / 2 ** 20).toFixed(1)} MiB (+${(growth / 2 ** 20).toFixed(1)} MiB) for a 50 MiB file\n`);
    // The issue's bound: RSS must not grow by the file size. Buffering would hold the whole 50 MiB body at once (and
    // copies of it); streaming costs a few erasure blocks plus GC slack, measured +5 to +35 MiB on a loaded machine.
    assert.ok(growth < 50 * 2 ** 20, `RSS grew by ${(growth / 2 ** 20).toFixed(1)} MiB, the file's size: the body was buffered`);
  } finally {
    await context.close();
    rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  }
});

test('5: wrong keys, an expired session and a missing permission get clear messages and the right status', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  try {
    // Wrong keys: 401, the form says so.
    await page.goto(`${consoleUrl}/svc/console/`);
    await page.getByLabel('Access key').fill(svc.accessKey);
    await page.getByLabel('Secret key').fill('not-the-secret');
    const [login] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/svc/console/api/login')),
      page.getByRole('button', { name: 'Sign in', exact: true }).click(),
    ]);
    assert.equal(login.status(), 401);
    const wrong = await page.getByTestId('error').textContent();
    assert.match(wrong ?? '', /access key or secret key is wrong/);
    await shot(page, '5-wrong-keys');

    // Expired session: a cookie that was valid and whose time is over.
    const keys = deriveConsoleKeys({ accessKey: svc.accessKey, secretKey: svc.secretKey });
    const old = issueSession(keys, { sub: svc.accessKey, kind: 'keys' }, 60, new Date(Date.now() - 3600_000));
    const url = new URL(consoleUrl);
    await page.context().addCookies([{ name: 'svc_session', value: old.token, domain: url.hostname, path: '/svc/console', httpOnly: true, sameSite: 'Lax' }]);
    const [session] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/svc/console/api/session')),
      page.reload(),
    ]);
    assert.equal(session.status(), 401);
    assert.equal((await session.json() as { code: string }).code, 'SessionExpired');
    assert.match(await page.getByTestId('notice').textContent() ?? '', /session has expired/);
    await shot(page, '5-expired');

    // Missing permission: a readonly user may browse but not see the Status page (403, names the action).
    const added = await adminCall(svc.url, svc.accessKey, svc.secretKey, 'PUT', 'users/reader', { body: { secretKey: 'reader-secret', policies: ['readonly'] } });
    assert.equal(added.status, 200);
    await signIn(page, consoleUrl, 'reader', 'reader-secret');
    const [status] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/svc/console/api/status')),
      page.goto(`${consoleUrl}/svc/console/#/status`).then(() => page.reload()),
    ]);
    assert.equal(status.status(), 403);
    const denied = await page.getByTestId('error').textContent();
    assert.match(denied ?? '', /not allowed admin:ServerInfo/);
    await shot(page, '5-denied');
    // A mutation without the CSRF token is refused even with a valid session.
    const csrf = await page.evaluate(async () => (await fetch('/svc/console/api/buckets', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"x-csrf"}' })).status);
    assert.equal(csrf, 403);
    for (const text of [wrong, denied]) assert.doesNotMatch(text ?? '', /\n\s+at |Error:/);
  } finally {
    await page.close();
  }
});

test('the console answers with CSP, frame-ancestors none, immutable hashed assets, and a JS bundle under 250 KiB gzipped', async () => {
  const page = await fetch(`${consoleUrl}/svc/console/`);
  const csp = page.headers.get('content-security-policy') ?? '';
  assert.match(csp, /script-src 'self'/);
  assert.doesNotMatch(csp, /unsafe-inline/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.equal(page.headers.get('cache-control'), 'no-cache');
  const html = await page.text();
  assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
  const js = /src="(\/svc\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
  assert.ok(js);
  const asset = await fetch(`${consoleUrl}${js}`);
  assert.equal(asset.status, 200);
  assert.match(asset.headers.get('cache-control') ?? '', /immutable/);
  const assets = join(CONSOLE_DIST, 'assets');
  const gzipped = readdirSync(assets).filter((f) => f.endsWith('.js')).reduce((n, f) => n + gzipSync(readFileSync(join(assets, f))).length, 0);
  assert.ok(gzipped < 250 * 1024, `JS is ${gzipped} bytes gzipped`);
  // The WebSocket refuses a handshake without a session before upgrading: a plain 401 answer.
  const handshake = await new Promise<number>((resolve, reject) => {
    const req = httpRequest(`${consoleUrl}/svc/console/ws`, {
      headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': randomBytes(16).toString('base64') },
    });
    req.on('response', (res) => { res.resume(); resolve(res.statusCode ?? 0); });
    req.on('upgrade', (_res, socket) => { socket.destroy(); resolve(101); });
    req.on('error', reject);
    req.end();
  });
  assert.equal(handshake, 401);
  const health = await fetch(`${consoleUrl}/svc/console/health`);
  assert.equal(health.status, 200);
  const root = await fetch(`${consoleUrl}/`, { redirect: 'manual' });
  assert.equal(root.status, 302);
  assert.equal(root.headers.get('location'), '/svc/console/');
});

test('6: with SVC_CONSOLE_ENABLE=false nothing listens on the console address', async (t) => {
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  const off = await startSvc({ drives: 1, consoleEnabled: false, env: { SVC_CONSOLE_ADDRESS: `127.0.0.1:${port}` } });
  t.after(async () => { await off.stop(); off.cleanup(); });
  assert.equal(off.consoleUrl, undefined);
  const refused = await new Promise<boolean>((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    s.once('connect', () => { s.destroy(); resolve(false); });
    s.once('error', () => resolve(true));
  });
  assert.ok(refused, `nothing listens on ${port}`);
});

test('object browser: prefixes page by page, versioning toggle, metadata, and a share link that downloads over S3', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  try {
    await signIn(page, consoleUrl, svc.accessKey, svc.secretKey);
    const csrf = await page.evaluate(async () => (await (await fetch('/svc/console/api/session')).json() as { csrfToken: string }).csrfToken);
    const call = (method: string, path: string, body?: string, type = 'application/json') => page.evaluate(async (a) => {
      const r = await fetch(`/svc/console/api${a.path}`, { method: a.method, headers: { 'x-csrf-token': a.csrf, 'content-type': a.type }, ...(a.body !== undefined ? { body: a.body } : {}) });
      return { status: r.status, json: r.status === 204 ? null : await r.json() as Record<string, unknown> };
    }, { method, path, body, type, csrf });
    assert.equal((await call('POST', '/buckets', '{"name":"paged"}')).status, 200);
    for (let i = 0; i < 5; i++) assert.equal((await call('PUT', `/buckets/paged/upload?key=dir/f${i}.txt`, `hello ${i}`, 'text/plain')).status, 200);
    assert.equal((await call('PUT', '/buckets/paged/upload?key=top.txt', 'top', 'text/plain')).status, 200);
    const top = await call('GET', '/buckets/paged/objects?prefix=');
    assert.deepEqual(top.json!.prefixes, ['dir/']);
    const first = await call('GET', '/buckets/paged/objects?prefix=dir/&limit=2');
    assert.deepEqual((first.json!.objects as { key: string }[]).map((o) => o.key), ['dir/f0.txt', 'dir/f1.txt']);
    const second = await call('GET', `/buckets/paged/objects?prefix=dir/&limit=2&token=${first.json!.nextToken as string}`);
    assert.deepEqual((second.json!.objects as { key: string }[]).map((o) => o.key), ['dir/f2.txt', 'dir/f3.txt']);
    const bad = await call('GET', `/buckets/paged/objects?prefix=other/&token=${first.json!.nextToken as string}`);
    assert.equal(bad.status, 400);

    assert.equal((await call('GET', '/buckets/paged/versioning')).json!.status, 'unversioned');
    assert.equal((await call('PUT', '/buckets/paged/versioning', '{"enabled":true}')).json!.status, 'enabled');
    const meta = await call('GET', '/buckets/paged/object?key=top.txt');
    assert.equal(meta.json!.contentType, 'text/plain');
    assert.equal(meta.json!.size, 3);
    assert.equal((await call('GET', '/buckets/paged/object?key=missing')).status, 404);

    // The share link through the page, then fetched without any session, against the S3 listener.
    await page.goto(`${consoleUrl}/svc/console/#/browser`);
    await page.getByTestId('bucket').filter({ hasText: 'paged' }).click();
    const row = page.locator('[data-testid=object-row][data-key="top.txt"]');
    await row.getByRole('button', { name: 'Share' }).click();
    await page.getByRole('button', { name: 'Create link' }).click();
    const link = await page.getByTestId('share-url').inputValue();
    assert.ok(link.startsWith(svc.url), link);
    assert.match(link, /X-Amz-Expires=3600/);
    const shared = await fetch(link);
    assert.equal(shared.status, 200);
    assert.equal(await shared.text(), 'top');
    await row.getByRole('button', { name: 'Info' }).click();
    assert.match(await page.getByTestId('details').textContent() ?? '', /text\/plain/);
    await shot(page, '3-share-and-info');
    assert.equal((await call('POST', '/buckets/paged/share', '{"key":"top.txt","expiresSeconds":999999999}')).status, 400);
  } finally {
    await page.close();
  }
});

test('identity pages: users, a policy checked as JSON in the page and as a policy by the server, a service account', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  try {
    await signIn(page, consoleUrl, svc.accessKey, svc.secretKey);
    await page.goto(`${consoleUrl}/svc/console/#/identity`);
    await page.getByRole('tab', { name: 'Policies' }).click();
    await page.getByLabel('Policy name').fill('broken');
    await page.getByLabel('Document').fill('{"Version": "2012-10-17", "Statement": [');
    assert.match(await page.getByTestId('json-error').textContent() ?? '', /Not valid JSON/);
    assert.equal(await page.getByRole('button', { name: 'Save policy' }).isDisabled(), true);
    // Valid JSON, invalid policy: the server's parser says what is wrong (400, no stack).
    await page.getByLabel('Document').fill('{"Version": "2012-10-17", "Statement": [{"Effect": "Maybe", "Action": "s3:GetObject", "Resource": "*"}]}');
    const [saved] = await Promise.all([
      page.waitForResponse((r) => r.url().includes('/api/iam/policies/broken')),
      page.getByRole('button', { name: 'Save policy' }).click(),
    ]);
    assert.equal(saved.status(), 400);
    assert.match(await page.getByTestId('error').textContent() ?? '', /Effect|policy/i);
    await page.getByLabel('Document').fill('{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::paged/*"}]}');
    await page.getByRole('button', { name: 'Save policy' }).click();
    await page.getByRole('cell', { name: 'broken', exact: true }).waitFor();
    await shot(page, '4-identity-policies');

    await page.getByRole('tab', { name: 'Users' }).click();
    await page.getByLabel('Access key').fill('webuser');
    await page.getByLabel('Secret key').fill('webuser-secret');
    await page.getByLabel('Policies').fill('broken');
    await page.getByRole('button', { name: 'Add user' }).click();
    await page.getByTestId('user-row').filter({ hasText: 'webuser' }).waitFor();

    await page.getByRole('tab', { name: 'Service accounts' }).click();
    await page.getByRole('button', { name: 'Create service account for me' }).click();
    const created = await page.getByTestId('created-account').textContent();
    assert.match(created ?? '', /shown only this once/);
    await shot(page, '4-identity-service-account');
  } finally {
    await page.close();
  }
});
