/**
 * Must show 2 (issue 5): a user whose only policy allows s3:* on bucket `alpha` — made with `rc admin policy create`,
 * `rc admin user add` and `rc admin policy attach` — can `rc cp` into alpha, gets exit 6 (AccessDenied) on bucket
 * `bravo`, and `rc admin info cluster` as that user exits non-zero with a permission message.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSvc, type SvcProcess } from '../helpers/svc-process.js';
import { rcRunner, type RcRunner } from './helpers.js';

let svc: SvcProcess;
let r: RcRunner;
let work: string;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

before(async () => {
  svc = await startSvc({ drives: 4 });
  r = rcRunner();
  work = mkdtempSync(join(tmpdir(), 'rc-iam-'));
  await r.rcOk(['alias', 'set', 'root', svc.url, svc.accessKey, svc.secretKey]);
  await r.rcOk(['ready', 'root', '--timeout', '60s']);
});
after(async () => {
  await svc.stop();
  svc.cleanup();
  r.cleanup();
  rmSync(work, { recursive: true, force: true, maxRetries: 5 });
});

test('a user limited to bucket alpha by rc admin policy/user commands', async () => {
  await r.rcOk(['mb', 'root/alpha', 'root/bravo']);
  const policy = join(work, 'only-alpha.json');
  writeFileSync(policy, JSON.stringify({
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Action: ['s3:*'], Resource: ['arn:aws:s3:::alpha', 'arn:aws:s3:::alpha/*'] }],
  }));
  await r.rcOk(['admin', 'policy', 'create', 'root', 'only-alpha', policy]);
  assert.match((await r.rcOk(['admin', 'policy', 'list', 'root'])).stdout, /^only-alpha$/m);
  await r.rcOk(['admin', 'user', 'add', 'root', 'alice', 'alice-secret-123']);
  await r.rcOk(['admin', 'policy', 'attach', 'root', 'only-alpha', '--user', 'alice']);
  const info = JSON.parse((await r.rcOk(['admin', 'user', 'info', 'root', 'alice', '--json'])).stdout) as { status: string; policies: string[] };
  assert.deepEqual([info.status, info.policies], ['enabled', ['only-alpha']]);

  // ListBuckets is denied to alice, which still proves her keys: the alias is accepted.
  await r.rcOk(['alias', 'set', 'alice', svc.url, 'alice', 'alice-secret-123']);

  const file = join(work, 'data.bin');
  const body = randomBytes(200_000);
  writeFileSync(file, body);
  await r.rcOk(['cp', file, 'alice/alpha/data.bin']);
  await r.rcOk(['cp', 'alice/alpha/data.bin', join(work, 'back.bin')]);
  assert.equal(sha(readFileSync(join(work, 'back.bin'))), sha(body));

  const denied = await r.rc(['cp', file, 'alice/bravo/data.bin']);
  assert.equal(denied.code, 6, denied.stderr);
  assert.match(denied.stderr, /^rc: access denied .*AccessDenied/);
  assert.equal(denied.stderr.trim().split('\n').length, 1);
  assert.equal((await r.rc(['ls', 'alice/bravo'])).code, 6);

  const admin = await r.rc(['admin', 'info', 'cluster', 'alice']);
  assert.notEqual(admin.code, 0);
  assert.equal(admin.code, 6);
  assert.equal(admin.stdout, '');
  assert.match(admin.stderr, /^rc: permission denied .*AccessDenied/);

  // Root still sees everything, and disabling alice takes her access away.
  await r.rcOk(['admin', 'user', 'disable', 'root', 'alice']);
  assert.notEqual((await r.rc(['cp', file, 'alice/alpha/again.bin'])).code, 0);
  await r.rcOk(['admin', 'policy', 'detach', 'root', 'only-alpha', '--user', 'alice']);
  await r.rcOk(['admin', 'user', 'remove', 'root', 'alice']);
  assert.equal((await r.rc(['admin', 'user', 'info', 'root', 'alice'])).code, 7);
  await r.rcOk(['admin', 'policy', 'remove', 'root', 'only-alpha']);
});

test('groups give their policies to members; service accounts act for their parent', async () => {
  await r.rcOk(['mb', '--ignore-existing', 'root/alpha']);
  await r.rcOk(['admin', 'user', 'add', 'root', 'bob', 'bob-secret-1234']);
  await r.rcOk(['admin', 'group', 'add', 'root', 'readers', 'bob']);
  await r.rcOk(['admin', 'policy', 'attach', 'root', 'readonly', '--group', 'readers']);
  const g = JSON.parse((await r.rcOk(['admin', 'group', 'info', 'root', 'readers', '--json'])).stdout) as { members: string[]; policies: string[] };
  assert.deepEqual([g.members, g.policies], [['bob'], ['readonly']]);
  assert.match((await r.rcOk(['admin', 'group', 'list', 'root'])).stdout, /^readers +1 members +readonly$/m);

  const file = join(work, 'g.txt');
  writeFileSync(file, 'group');
  await r.rcOk(['cp', file, 'root/alpha/g.txt']);
  await r.rcOk(['alias', 'set', 'bob', svc.url, 'bob', 'bob-secret-1234']);
  // MinIO's readonly grants s3:GetObject (and GetBucketLocation), not listing or writing.
  assert.equal((await r.rcOk(['cat', 'bob/alpha/g.txt'])).stdout, 'group');
  assert.equal((await r.rc(['cp', file, 'bob/alpha/g2.txt'])).code, 6, 'readonly cannot write');

  const sa = JSON.parse((await r.rcOk(['admin', 'svcacct', 'add', 'root', 'bob', '--json'])).stdout) as { accessKey: string; secretKey: string };
  assert.ok(sa.accessKey && sa.secretKey);
  const listed = (await r.rcOk(['admin', 'svcacct', 'list', 'root', 'bob', '--json'])).stdout.trim().split('\n').map((l) => JSON.parse(l) as { accessKey: string; parent: string });
  assert.deepEqual(listed.map((s) => [s.accessKey, s.parent]), [[sa.accessKey, 'bob']]);
  await r.rcOk(['alias', 'set', 'bobsa', svc.url, sa.accessKey, sa.secretKey]);
  assert.equal((await r.rcOk(['cat', 'bobsa/alpha/g.txt'])).stdout, 'group');
  await r.rcOk(['admin', 'svcacct', 'remove', 'root', sa.accessKey]);
  assert.equal((await r.rc(['cat', 'bobsa/alpha/g.txt'])).code, 5, 'a removed service account no longer authenticates');

  assert.equal((await r.rc(['admin', 'group', 'remove', 'root', 'readers'])).code, 1, 'GroupNotEmpty');
  await r.rcOk(['admin', 'group', 'remove', 'root', 'readers', 'bob']);
  await r.rcOk(['admin', 'group', 'remove', 'root', 'readers']);
});
