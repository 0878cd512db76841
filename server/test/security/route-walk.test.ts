/**
 * Issue 10 Must show 4: every route of both listeners, walked without credentials, answers 401/403 — except the
 * probes (SPEC §4: no authentication) and the console's public pages. The route table comes from the running server
 * itself (every route fastify registered, plugins included), so a route added later without auth fails this test.
 * Two servers: a path-mode node, and a URL-mode node (one node, cluster routes /svc/rpc and /svc/peer mounted).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/index.js';
import { startServer, type RunningServer } from '../../src/main.js';

/** Routes anybody may call: the probes and the console's public pages (sign-in happens there). */
const PUBLIC = [
  /^\/health(\/live|\/ready)?$/, /^\/compat\/health\//, /^\/minio\/health\//,
  /^\/svc\/console\/health$/, /^\/$/, /^\/svc\/console\/?$/, /^\/svc\/console\/assets\//,
  // The single-page app's shell (static HTML and hashed assets) and what its sign-in page calls.
  /^\/svc\/console\/\*$/, /^\/svc\/console\/api\/(config|login|logout)$/, /^\/svc\/console\/oidc\/(login|callback)$/,
];

const dirs: string[] = [];
const servers: RunningServer[] = [];
const env = { SVC_ACCESS_KEY: `AK${randomBytes(8).toString('hex')}`, SVC_SECRET_KEY: randomBytes(20).toString('hex'), SVC_OBS_LOGGER_LEVEL: 'fatal' };

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function start(drives: (dir: string, port: number) => string[]): Promise<RunningServer> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-walk-'));
  dirs.push(dir);
  const port = await freePort();
  const config = loadConfig({ address: `127.0.0.1:${port}`, consoleAddress: '127.0.0.1:0', drives: drives(dir, port) }, { ...env, SVC_CONFIG_DIR: dir }, dir);
  const server = await startServer(config, () => undefined);
  servers.push(server);
  return server;
}

let pathMode: RunningServer;
let urlMode: RunningServer;

before(async () => {
  pathMode = await start((dir) => [join(dir, 'd{1...4}')]);
  urlMode = await start((dir, port) => [`http://127.0.0.1:${port}${dir}/d{1...4}`]);
});

after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  for (const d of dirs) rmSync(d, { recursive: true, force: true, maxRetries: 5 });
});

/** A concrete path for a route pattern: params and wildcards get harmless sample values. */
function sample(url: string): string {
  return url.replace(/:(\w+)/g, 'walk-$1').replace(/\*/g, 'walk/any');
}

/** Requests each route of `routes` on `base` without credentials; returns the unexpected answers. */
async function walk(base: string, routes: readonly { method: string; url: string }[]): Promise<string[]> {
  const problems: string[] = [];
  for (const { method, url } of routes) {
    const path = sample(url);
    const body = ['POST', 'PUT', 'PATCH', 'DELETE'].includes(method) ? '{}' : undefined;
    const r = await fetch(`${base}${path}`, { method, body, redirect: 'manual', headers: body ? { 'content-type': 'application/json' } : {} });
    const text = method === 'HEAD' ? '' : await r.text();
    if (PUBLIC.some((p) => p.test(url))) continue;
    // A CORS preflight is unauthenticated by design (the browser sends no credentials) and reveals nothing.
    if (method === 'OPTIONS' && r.status >= 400 && r.status < 500) continue;
    // No S3 operation is a POST/PATCH of a plain key: the router answers 405 MethodNotAllowed before any work is done.
    if (r.status === 405 && /<Code>MethodNotAllowed<\/Code>/.test(text)) continue;
    if (r.status !== 401 && r.status !== 403) problems.push(`${method} ${url} (${path}) → ${r.status} ${text.slice(0, 120)}`);
    if (/deploymentId|secretKey|thisDrive|"endpoints"/.test(text)) problems.push(`${method} ${url} leaks data: ${text.slice(0, 120)}`);
  }
  return problems;
}

test('the route tables are complete: S3 catch-all, admin, probes, and in URL mode the node-to-node routes', () => {
  const urls = (s: RunningServer) => new Set(s.routes().api.map((r) => r.url));
  for (const s of [pathMode, urlMode]) {
    assert.ok(urls(s).has('/health/ready'));
    assert.ok([...urls(s)].some((u) => u.startsWith('/svc/admin/v3/')), 'admin routes are listed');
    assert.ok(s.routes().api.length > 20, `${s.routes().api.length} routes`);
    assert.ok(s.routes().console.length > 0);
  }
  assert.ok([...urls(urlMode)].some((u) => u.startsWith('/svc/rpc/')), 'storage RPC routes in URL mode');
  assert.ok([...urls(urlMode)].some((u) => u.startsWith('/svc/peer/')), 'peer routes in URL mode');
  assert.ok(![...urls(pathMode)].some((u) => u.startsWith('/svc/rpc/')), 'no RPC routes on a path-mode node');
});

test('Must show 4: without credentials every route but the probes and the console\'s public pages answers 401/403 (or 405 for no such operation)', async () => {
  for (const s of [pathMode, urlMode]) {
    assert.deepEqual(await walk(s.apiUrl, s.routes().api), [], `API listener ${s.apiUrl}`);
    assert.deepEqual(await walk(s.consoleUrl!, s.routes().console), [], `console listener ${s.consoleUrl}`);
  }
});

test('the S3 catch-all refuses anonymous requests of every kind (no bucket policy grants anything)', async () => {
  const cases: [string, string, string?][] = [
    ['GET', '/'], ['PUT', '/walk-bucket'], ['GET', '/walk-bucket'], ['GET', '/walk-bucket/key'], ['PUT', '/walk-bucket/key', 'data'],
    ['DELETE', '/walk-bucket/key'], ['POST', '/walk-bucket?delete', '<Delete/>'], ['POST', '/walk-bucket/key?uploads'],
    ['GET', '/walk-bucket?policy'], ['GET', '/walk-bucket?versions'], ['HEAD', '/walk-bucket'],
  ];
  for (const [method, path, body] of cases) {
    const r = await fetch(`${pathMode.apiUrl}${path}`, { method, body });
    assert.equal(r.status, 403, `${method} ${path}`);
  }
});
