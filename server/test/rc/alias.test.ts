/** `rc alias` against a real server: validation by a signed call, mode 600/700 storage, typed failures. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { startSvc, type SvcProcess } from '../helpers/svc-process.js';
import { rcRunner, type RcRunner } from './helpers.js';

let svc: SvcProcess;
let r: RcRunner;

before(async () => {
  svc = await startSvc({ drives: 1 });
  r = rcRunner();
});
after(async () => {
  await svc.stop();
  svc.cleanup();
  r.cleanup();
});

/** A loopback port nobody listens on (bound, then released). */
async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((res) => s.listen(0, '127.0.0.1', () => res()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((res) => s.close(() => res()));
  return port;
}

test('alias set validates the keys and stores them mode 600 in a mode 700 directory; list and remove', async () => {
  const set = await r.rcOk(['alias', 'set', 'local', `${svc.url}/`, svc.accessKey, svc.secretKey]);
  assert.match(set.stdout, /Added "local"/);
  const file = join(r.configDir, 'config.json');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(statSync(r.configDir).mode & 0o777, 0o700);
  const stored = JSON.parse(readFileSync(file, 'utf8')) as { aliases: Record<string, { url: string; secretKey: string }> };
  assert.equal(stored.aliases['local']?.url, svc.url);
  assert.equal(stored.aliases['local']?.secretKey, svc.secretKey);

  const list = await r.rcOk(['alias', 'list', '--json']);
  const entries = list.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, string>);
  assert.deepEqual(entries, [{ alias: 'local', url: svc.url, accessKey: svc.accessKey, region: 'us-east-1' }]);
  assert.doesNotMatch(list.stdout + (await r.rcOk(['alias', 'list'])).stdout, new RegExp(svc.secretKey));

  await r.rcOk(['alias', 'set', 'second', svc.url, svc.accessKey, svc.secretKey]);
  await r.rcOk(['alias', 'remove', 'second']);
  assert.deepEqual(Object.keys((JSON.parse(readFileSync(file, 'utf8')) as { aliases: object }).aliases), ['local']);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const again = await r.rc(['alias', 'remove', 'second']);
  assert.equal(again.code, 3);
  assert.match(again.stderr, /unknown alias "second"/);
});

test('bad keys exit 5 and store nothing; an unreachable server exits 4', async () => {
  const wrongSecret = await r.rc(['alias', 'set', 'bad', svc.url, svc.accessKey, 'not-the-secret']);
  assert.equal(wrongSecret.code, 5, wrongSecret.stderr);
  assert.match(wrongSecret.stderr, /^rc: authentication failed .*SignatureDoesNotMatch/);
  const unknownKey = await r.rc(['alias', 'set', 'bad', svc.url, 'NOSUCHKEY', 'whatever123']);
  assert.equal(unknownKey.code, 5, unknownKey.stderr);
  assert.match(unknownKey.stderr, /InvalidAccessKeyId/);
  const down = await r.rc(['alias', 'set', 'bad', `http://127.0.0.1:${await deadPort()}`, svc.accessKey, svc.secretKey]);
  assert.equal(down.code, 4, down.stderr);
  assert.match(down.stderr, /^rc: cannot reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
  assert.equal(down.stderr.trim().split('\n').length, 1);
  const aliases = (JSON.parse(readFileSync(join(r.configDir, 'config.json'), 'utf8')) as { aliases: object }).aliases;
  assert.equal(Object.hasOwn(aliases, 'bad'), false);
});

test('usage errors exit 2; a malformed config file exits 3; --help lists the exit codes', async () => {
  assert.equal((await r.rc(['alias', 'set', 'x/y', svc.url, 'a', 'b'])).code, 2);
  assert.equal((await r.rc(['alias', 'set', 'x', 'ftp://host', 'a', 'b'])).code, 2);
  assert.equal((await r.rc(['alias', 'set', 'x'])).code, 2);
  assert.equal((await r.rc(['frobnicate'])).code, 2);
  const help = await r.rcOk(['--help']);
  assert.match(help.stdout, /Exit codes:[\s\S]*5 +authentication failed[\s\S]*6 +permission denied/);
  for (const cmd of [['cp'], ['alias', 'set'], ['admin', 'info', 'cluster'], ['ready']]) {
    assert.match((await r.rcOk([...cmd, '--help'])).stdout, /^Usage: rc /, cmd.join(' '));
  }
  const broken = rcRunner();
  try {
    await broken.rcOk(['--version']);
    mkdirSync(broken.configDir, { recursive: true });
    writeFileSync(join(broken.configDir, 'config.json'), '{ not json');
    const res = await broken.rc(['ls', 'local']);
    assert.equal(res.code, 3);
    assert.match(res.stderr, /config\.json is unreadable/);
  } finally {
    broken.cleanup();
  }
});

test('rc ready exits 0 on a ready server and 8 after --timeout when nothing answers', async () => {
  const ok = await r.rcOk(['ready', 'local', '--timeout', '10s']);
  assert.match(ok.stdout, /local is ready/);
  await r.rcOk(['alias', 'set', 'gone', svc.url, svc.accessKey, svc.secretKey]);
  const cfgFile = join(r.configDir, 'config.json');
  const cfg = JSON.parse(readFileSync(cfgFile, 'utf8')) as { aliases: Record<string, { url: string }> };
  cfg.aliases['gone']!.url = `http://127.0.0.1:${await deadPort()}`;
  writeFileSync(cfgFile, JSON.stringify(cfg));
  const res = await r.rc(['ready', 'gone', '--timeout', '1s']);
  assert.equal(res.code, 8, res.stderr);
  assert.match(res.stderr, /^rc: gone is not ready after 1s: \/health\/ready answered unreachable \(ECONNREFUSED\)/);
  assert.equal((await r.rc(['ready', 'local', '--cluster', '--cluster-read'])).code, 2);
  assert.equal((await r.rc(['ready', 'local', '--timeout', 'soon'])).code, 2);
});
