/**
 * `rc admin …` against a stub admin server that verifies every signature: --json passes the report through,
 * the human view fits 80 columns, colours follow TTY/NO_COLOR, and admin errors get their exit codes.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { EXIT, runRc } from '../../src/cli/index.js';
import { type StubAdminServer, startStubAdmin } from './stub-admin-server.js';

const FIXTURE = readFileSync(new URL('./fixtures/info-4-nodes-one-down.json', import.meta.url), 'utf8');
const ROOT = { accessKey: 'ROOTKEY', secretKey: 'rootsecret1234' };
const ALICE = { accessKey: 'alice', secretKey: 'alicesecret1234' };
let stub: StubAdminServer;
let dir: string;

before(async () => {
  stub = await startStubAdmin({ [ROOT.accessKey]: ROOT.secretKey, [ALICE.accessKey]: ALICE.secretKey }, (c) => {
    if (c.accessKey === ALICE.accessKey) return { status: 403, body: { code: 'AccessDenied', message: 'admin:ServerInfo is not allowed for user alice' } };
    if (c.method === 'GET' && c.path === '/svc/admin/v3/info') return { status: 200, body: JSON.parse(FIXTURE) };
    if (c.method === 'GET' && c.path === '/svc/admin/v3/users/no%20body') return { status: 404, body: { code: 'NoSuchUser', message: 'no such user' } };
    if (c.method === 'PUT' && c.path.startsWith('/svc/admin/v3/users/')) return { status: 200, body: { accessKey: decodeURIComponent(c.path.split('/').at(-1) ?? ''), status: 'enabled', policies: [], groups: [] } };
    if (c.method === 'PUT' && c.path.startsWith('/svc/admin/v3/policies/')) return { status: 200, body: { name: 'p' } };
    if (c.method === 'POST' && c.path.endsWith('/policies')) return { status: 200, body: { accessKey: 'x', status: 'enabled', policies: ['p'], groups: [] } };
    return { status: 404, body: { code: 'NotFound', message: c.path } };
  });
  dir = mkdtempSync(join(tmpdir(), 'rc-stub-'));
  const aliases = { root: { url: stub.url, ...ROOT, region: 'us-east-1' }, alice: { url: stub.url, ...ALICE, region: 'us-east-1' } };
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ version: 1, aliases }), { mode: 0o600 });
});
after(async () => {
  await stub.close();
  rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
});

async function rc(args: string[], opts: { tty?: boolean; env?: Record<string, string> } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = Object.assign(new Writable({ write(c, _e, cb) { stdout += String(c); cb(); } }), { isTTY: opts.tty === true });
  const err = { isTTY: false, write(s: string | Uint8Array) { stderr += String(s); return true; } };
  const code = await runRc(['node', 'rc', ...args], { stdout: out, stderr: err, stdin: new PassThrough(), env: { RC_CONFIG_DIR: dir, ...opts.env } });
  return { code, stdout, stderr };
}

test('--json prints the server report unchanged (version and every field)', async () => {
  const r = await rc(['admin', 'info', 'cluster', 'root', '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), JSON.parse(FIXTURE));
  assert.equal(stub.calls.at(-1)?.path, '/svc/admin/v3/info');
});

test('the human cluster view fits 80 columns; colours only on a TTY without NO_COLOR', async () => {
  const piped = await rc(['admin', 'info', 'cluster', 'root']);
  assert.equal(piped.code, 0, piped.stderr);
  assert.match(piped.stdout, /Servers: +3\/4 online/);
  assert.doesNotMatch(piped.stdout, /\u001b\[/);
  for (const line of piped.stdout.split('\n')) assert.ok(line.length <= 80, line);
  const tty = await rc(['admin', 'info', 'cluster', 'root'], { tty: true });
  assert.match(tty.stdout, /\u001b\[31moffline/);
  const noColor = await rc(['admin', 'info', 'cluster', 'root'], { tty: true, env: { NO_COLOR: '1' } });
  assert.doesNotMatch(noColor.stdout, /\u001b\[/);
  assert.equal(noColor.stdout, piped.stdout);
});

test('server and disk views', async () => {
  const s = await rc(['admin', 'info', 'server', 'root']);
  assert.match(s.stdout, /127\.0\.0\.4:9000 +offline/);
  assert.doesNotMatch(s.stdout, /^Disks$/m);
  const d = await rc(['admin', 'info', 'disk', 'root', '--offline']);
  assert.equal(d.code, 0, d.stderr);
  assert.equal((d.stdout.match(/ offline /g) ?? []).length, 4, d.stdout);
  assert.doesNotMatch(d.stdout, / ok /);
});

test('AccessDenied exits 6 with the server\'s permission message on one stderr line', async () => {
  const r = await rc(['admin', 'info', 'cluster', 'alice']);
  assert.equal(r.code, EXIT.denied);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr.trim().split('\n').length, 1);
  assert.match(r.stderr, /^rc: permission denied .*admin:ServerInfo is not allowed for user alice/);
});

test('a wrong secret key exits 5; a missing user exits 7; an unknown alias exits 3', async () => {
  const cfg = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { aliases: Record<string, { secretKey: string }> };
  const badDir = mkdtempSync(join(tmpdir(), 'rc-stub-bad-'));
  try {
    writeFileSync(join(badDir, 'config.json'), JSON.stringify({ version: 1, aliases: { root: { ...cfg.aliases['root'], secretKey: 'wrong' } } }));
    let stderr = '';
    const code = await runRc(['node', 'rc', 'admin', 'info', 'cluster', 'root'], {
      stdout: new PassThrough(), stderr: { write: (s) => { stderr += String(s); return true; } }, stdin: new PassThrough(), env: { RC_CONFIG_DIR: badDir },
    });
    assert.equal(code, EXIT.auth, stderr);
    assert.match(stderr, /authentication failed/);
  } finally {
    rmSync(badDir, { recursive: true, force: true, maxRetries: 5 });
  }
  const missing = await rc(['admin', 'user', 'info', 'root', 'no body']);
  assert.equal(missing.code, EXIT.notFound, missing.stderr);
  assert.match(missing.stderr, /NoSuchUser/);
  const unknown = await rc(['admin', 'info', 'cluster', 'nope']);
  assert.equal(unknown.code, EXIT.config);
  assert.match(unknown.stderr, /unknown alias "nope".*rc alias set nope/);
});

test('IAM calls send the documented bodies (signed, body hash checked by the stub)', async () => {
  const policyFile = join(dir, 'p.json');
  const doc = { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: ['s3:*'], Resource: ['arn:aws:s3:::a', 'arn:aws:s3:::a/*'] }] };
  writeFileSync(policyFile, JSON.stringify(doc));
  assert.equal((await rc(['admin', 'policy', 'create', 'root', 'only-a', policyFile])).code, 0);
  assert.deepEqual(JSON.parse(stub.calls.at(-1)?.body ?? ''), doc);
  assert.equal((await rc(['admin', 'user', 'add', 'root', 'bob', 'bobsecret123'])).code, 0);
  assert.deepEqual({ m: stub.calls.at(-1)?.method, p: stub.calls.at(-1)?.path, b: JSON.parse(stub.calls.at(-1)?.body ?? '') },
    { m: 'PUT', p: '/svc/admin/v3/users/bob', b: { secretKey: 'bobsecret123' } });
  assert.equal((await rc(['admin', 'policy', 'attach', 'root', 'only-a', '--user', 'bob'])).code, 0);
  assert.deepEqual({ p: stub.calls.at(-1)?.path, b: JSON.parse(stub.calls.at(-1)?.body ?? '') }, { p: '/svc/admin/v3/users/bob/policies', b: { attach: ['only-a'] } });
  const both = await rc(['admin', 'policy', 'attach', 'root', 'only-a']);
  assert.equal(both.code, EXIT.usage);
  const notJson = join(dir, 'bad.json');
  writeFileSync(notJson, '{ nope');
  assert.equal((await rc(['admin', 'policy', 'create', 'root', 'x', notJson])).code, EXIT.usage);
});
