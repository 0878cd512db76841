/**
 * The IAM calls of the admin API against a real `svc` process: users, groups, policies (canned and custom, Deny,
 * wildcards, aws:SourceIp, s3:prefix) and service accounts, each call checked against its admin action, and the
 * resulting identities used through the AWS SDK.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client,
} from '@aws-sdk/client-s3';
import { startSvc, type SvcProcess } from '../helpers/svc-process.js';
import { s3Client } from '../helpers/s3-client.js';
import { rejectsWith } from '../s3/helpers/rejects.js';
import { adminCall, obj, type AdminResponse } from './admin-client.js';

let svc: SvcProcess;
const clients: S3Client[] = [];
const policy = (...statements: object[]) => ({ Version: '2012-10-17', Statement: statements });

before(async () => {
  svc = await startSvc({ drives: 4, consoleEnabled: false });
  const s3 = client(svc.accessKey, svc.secretKey);
  for (const b of ['one', 'two', 'home']) await s3.send(new CreateBucketCommand({ Bucket: b }));
  await s3.send(new PutObjectCommand({ Bucket: 'two', Key: 'x', Body: 'two x' }));
});
after(async () => {
  for (const c of clients) c.destroy();
  await svc?.stop();
  svc?.cleanup();
});

function client(accessKey: string, secretKey: string): S3Client {
  const c = s3Client(svc.url, accessKey, secretKey);
  clients.push(c);
  return c;
}
const root = (method: string, path: string, body?: unknown) => adminCall(svc.url, svc.accessKey, svc.secretKey, method, path, body === undefined ? {} : { body });
const as = (accessKey: string, method: string, path: string, body?: unknown) => adminCall(svc.url, accessKey, `${accessKey}-secret`, method, path, body === undefined ? {} : { body });

function ok(r: AdminResponse, status = 200): Record<string, unknown> {
  assert.equal(r.status, status, JSON.stringify(r.json));
  return obj(r);
}
function refused(r: AdminResponse, status: number, code: string, message?: RegExp): void {
  assert.equal(r.status, status, JSON.stringify(r.json));
  assert.equal(obj(r)['code'], code);
  if (message !== undefined) assert.match(String(obj(r)['message']), message);
}
async function addUser(name: string, policies: string[] = []): Promise<void> {
  ok(await root('PUT', `users/${name}`, { secretKey: `${name}-secret`, policies }));
}

test('users: add, info, list, duplicate, status, policies, remove — never a secret in an answer', async () => {
  const added = ok(await root('PUT', 'users/carol', { secretKey: 'carol-secret', policies: ['readonly'] }));
  assert.deepEqual(added, { accessKey: 'carol', status: 'enabled', policies: ['readonly'], groups: [] });
  refused(await root('PUT', 'users/carol', { secretKey: 'carol-secret' }), 409, 'UserExists');
  refused(await root('PUT', 'users/dave', { secretKey: 'dave-secret', policies: ['no-such-policy'] }), 404, 'NoSuchPolicy');
  assert.deepEqual(ok(await root('GET', 'users/carol')), added);
  assert.ok((ok(await root('GET', 'users'))['users'] as unknown[]).some((u) => JSON.stringify(u) === JSON.stringify(added)));
  assert.ok(!JSON.stringify(ok(await root('GET', 'users'))).includes('carol-secret'));
  const attached = ok(await root('POST', 'users/carol/policies', { attach: ['readwrite'], detach: ['readonly'] }));
  assert.deepEqual(attached['policies'], ['readwrite']);
  const carol = client('carol', 'carol-secret');
  await carol.send(new PutObjectCommand({ Bucket: 'one', Key: 'c', Body: 'c' }));
  assert.equal(ok(await root('POST', 'users/carol/status', { status: 'disabled' }))['status'], 'disabled');
  await rejectsWith(carol.send(new PutObjectCommand({ Bucket: 'one', Key: 'c', Body: 'c' })), 'InvalidAccessKeyId', 403);
  refused(await root('POST', 'users/carol/status', { status: 'paused' }), 400, 'InvalidArgument');
  ok(await root('POST', 'users/carol/status', { status: 'enabled' }));
  await carol.send(new PutObjectCommand({ Bucket: 'one', Key: 'c', Body: 'c' }));
  ok(await root('DELETE', 'users/carol'), 204);
  refused(await root('GET', 'users/carol'), 404, 'NoSuchUser');
  refused(await root('DELETE', 'users/carol'), 404, 'NoSuchUser');
});

test('a user without admin:ServerInfo gets 403 AccessDenied JSON; a consoleAdmin user may', async () => {
  await addUser('plain', ['readwrite']);
  await addUser('boss', ['consoleAdmin']);
  refused(await as('plain', 'GET', 'info'), 403, 'AccessDenied', /admin:ServerInfo/);
  refused(await as('plain', 'GET', 'users'), 403, 'AccessDenied', /admin:ListUsers/);
  refused(await as('plain', 'PUT', 'users/sneaky', { secretKey: 'sneaky-secret', policies: ['consoleAdmin'] }), 403, 'AccessDenied');
  refused(await root('GET', 'users/sneaky'), 404, 'NoSuchUser');
  assert.equal(ok(await as('boss', 'GET', 'info'))['version'], 1);
  ok(await as('boss', 'PUT', 'users/made-by-boss', { secretKey: 'made-by-boss-secret' }));
  // diagnostics grants admin:ServerInfo but no user management.
  await addUser('diag', ['diagnostics']);
  ok(await as('diag', 'GET', 'info'));
  refused(await as('diag', 'GET', 'heal-status'), 403, 'AccessDenied', /admin:Heal/);
});

test('custom admin policies: wildcards, an explicit Deny, aws:SourceIp', async () => {
  ok(await root('PUT', 'policies/lister', policy({ Effect: 'Allow', Action: ['admin:List*'] })));
  ok(await root('PUT', 'policies/all-but-create', policy(
    { Effect: 'Allow', Action: ['admin:*'] },
    { Effect: 'Deny', Action: ['admin:CreateUser'] },
  )));
  ok(await root('PUT', 'policies/info-from-loopback', policy(
    { Effect: 'Allow', Action: ['admin:ServerInfo'], Condition: { IpAddress: { 'aws:SourceIp': ['127.0.0.0/8'] } } },
  )));
  ok(await root('PUT', 'policies/info-from-elsewhere', policy(
    { Effect: 'Allow', Action: ['admin:ServerInfo'], Condition: { IpAddress: { 'aws:SourceIp': '10.0.0.0/8' } } },
  )));
  await addUser('lister', ['lister']);
  await addUser('almost', ['all-but-create']);
  await addUser('local', ['info-from-loopback']);
  await addUser('remote', ['info-from-elsewhere']);
  ok(await as('lister', 'GET', 'users'));
  ok(await as('lister', 'GET', 'groups'));
  ok(await as('lister', 'GET', 'service-accounts'));
  refused(await as('lister', 'GET', 'users/lister'), 403, 'AccessDenied', /admin:GetUser/);
  ok(await as('almost', 'GET', 'info'));
  ok(await as('almost', 'GET', 'users/almost'));
  refused(await as('almost', 'PUT', 'users/x1', { secretKey: 'x1-secret-key' }), 403, 'AccessDenied', /admin:CreateUser/);
  ok(await as('local', 'GET', 'info'));
  refused(await as('remote', 'GET', 'info'), 403, 'AccessDenied');
});

test('policies: list, info, malformed, canned are read-only, in use while attached', async () => {
  const list = ok(await root('GET', 'policies'))['policies'] as Array<{ name: string; canned: boolean }>;
  for (const n of ['consoleAdmin', 'diagnostics', 'readonly', 'readwrite', 'writeonly']) assert.ok(list.some((p) => p.name === n && p.canned), n);
  assert.ok(list.some((p) => p.name === 'lister' && !p.canned));
  assert.deepEqual(ok(await root('GET', 'policies/lister')), { name: 'lister', canned: false, policy: policy({ Effect: 'Allow', Action: ['admin:List*'] }) });
  assert.equal(ok(await root('GET', 'policies/readwrite'))['canned'], true);
  refused(await root('GET', 'policies/nope'), 404, 'NoSuchPolicy');
  refused(await root('PUT', 'policies/bad', policy({ Effect: 'Maybe', Action: 's3:GetObject', Resource: 'arn:aws:s3:::one/*' })), 400, 'MalformedPolicy', /Effect/);
  refused(await root('PUT', 'policies/bad', { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 's3:GetObject' }] }), 400, 'MalformedPolicy');
  refused(await root('PUT', 'policies/readwrite', policy({ Effect: 'Allow', Action: 's3:*', Resource: '*' })), 400, 'InvalidArgument');
  refused(await root('DELETE', 'policies/lister'), 409, 'PolicyInUse', /lister/);
  ok(await root('PUT', 'policies/unused', policy({ Effect: 'Allow', Action: 's3:GetObject', Resource: 'arn:aws:s3:::one/*' })));
  ok(await root('DELETE', 'policies/unused'), 204);
  refused(await root('GET', 'policies/unused'), 404, 'NoSuchPolicy');
});

test('readwrite on one bucket through the AWS SDK: allowed on its bucket, AccessDenied elsewhere; s3:prefix narrows listing', async () => {
  ok(await root('PUT', 'policies/rw-one', policy({ Effect: 'Allow', Action: ['s3:*'], Resource: ['arn:aws:s3:::one', 'arn:aws:s3:::one/*'] })));
  ok(await root('PUT', 'policies/home-erin', policy(
    { Effect: 'Allow', Action: ['s3:ListBucket'], Resource: 'arn:aws:s3:::home', Condition: { StringLike: { 's3:prefix': ['erin/*'] } } },
    { Effect: 'Allow', Action: ['s3:GetObject', 's3:PutObject'], Resource: 'arn:aws:s3:::home/erin/*' },
  )));
  await addUser('erin', ['rw-one', 'home-erin']);
  const erin = client('erin', 'erin-secret');
  await erin.send(new PutObjectCommand({ Bucket: 'one', Key: 'erin.txt', Body: 'hello' }));
  assert.equal(await (await erin.send(new GetObjectCommand({ Bucket: 'one', Key: 'erin.txt' }))).Body?.transformToString(), 'hello');
  await rejectsWith(erin.send(new PutObjectCommand({ Bucket: 'two', Key: 'erin.txt', Body: 'no' })), 'AccessDenied', 403);
  await rejectsWith(erin.send(new GetObjectCommand({ Bucket: 'two', Key: 'x' })), 'AccessDenied', 403);
  await erin.send(new PutObjectCommand({ Bucket: 'home', Key: 'erin/notes', Body: 'n' }));
  const mine = await erin.send(new ListObjectsV2Command({ Bucket: 'home', Prefix: 'erin/' }));
  assert.deepEqual(mine.Contents?.map((o) => o.Key), ['erin/notes']);
  await rejectsWith(erin.send(new ListObjectsV2Command({ Bucket: 'home', Prefix: 'frank/' })), 'AccessDenied', 403);
  await rejectsWith(erin.send(new ListObjectsV2Command({ Bucket: 'home' })), 'AccessDenied', 403);
});

test('groups: members inherit the group policies until removed; a group with members cannot be deleted', async () => {
  await addUser('gina');
  await addUser('hank');
  const gina = client('gina', 'gina-secret');
  await rejectsWith(gina.send(new PutObjectCommand({ Bucket: 'one', Key: 'g', Body: 'g' })), 'AccessDenied', 403);
  const created = ok(await root('PUT', 'groups/writers', { members: ['gina'], policies: ['rw-one'] }));
  assert.deepEqual(created, { name: 'writers', members: ['gina'], policies: ['rw-one'], status: 'enabled' });
  await gina.send(new PutObjectCommand({ Bucket: 'one', Key: 'g', Body: 'g' }));
  assert.deepEqual(ok(await root('GET', 'users/gina'))['groups'], ['writers']);
  refused(await root('PUT', 'groups/writers', { members: ['nobody-here'] }), 404, 'NoSuchUser');
  assert.deepEqual(ok(await root('POST', 'groups/writers/members', { add: ['hank'] }))['members'], ['gina', 'hank']);
  assert.deepEqual(ok(await root('GET', 'groups'))['groups'], [{ name: 'writers', members: ['gina', 'hank'], policies: ['rw-one'], status: 'enabled' }]);
  refused(await root('DELETE', 'groups/writers'), 409, 'GroupNotEmpty');
  refused(await root('DELETE', 'policies/rw-one'), 409, 'PolicyInUse');
  ok(await root('POST', 'groups/writers/members', { remove: ['gina'] }));
  await rejectsWith(gina.send(new PutObjectCommand({ Bucket: 'one', Key: 'g', Body: 'g' })), 'AccessDenied', 403);
  ok(await root('POST', 'groups/writers/policies', { attach: ['lister'], detach: ['rw-one'] }));
  assert.deepEqual(ok(await root('GET', 'groups/writers'))['policies'], ['lister']);
  ok(await as('hank', 'GET', 'users'));
  // Removing a user takes it out of its groups.
  ok(await root('DELETE', 'users/hank'), 204);
  assert.deepEqual(ok(await root('GET', 'groups/writers'))['members'], []);
  ok(await root('DELETE', 'groups/writers'), 204);
  refused(await root('GET', 'groups/writers'), 404, 'NoSuchGroup');
  refused(await root('POST', 'groups/writers/members', { add: ['gina'] }), 404, 'NoSuchGroup');
  refused(await root('PUT', 'groups/bad%2Fname', {}), 400, 'InvalidArgument');
  // Group calls need the group actions.
  await addUser('ivy', ['lister']);
  refused(await as('ivy', 'PUT', 'groups/ivy-group', { members: ['ivy'], policies: ['consoleAdmin'] }), 403, 'AccessDenied', /admin:AddUserToGroup/);
});

test('service accounts: created with a secret shown once, listed by parent, usable, narrowed by an inline policy, removed', async () => {
  await addUser('jack', ['readwrite']);
  const sa = ok(await root('PUT', 'service-accounts', { parent: 'jack' }));
  assert.equal(sa['parent'], 'jack');
  assert.equal(sa['status'], 'enabled');
  assert.equal(sa['expiration'], null);
  assert.equal(typeof sa['accessKey'], 'string');
  assert.equal(typeof sa['secretKey'], 'string');
  const key = String(sa['accessKey']);
  const listed = ok(await root('GET', 'service-accounts?parent=jack'))['serviceAccounts'] as Array<Record<string, unknown>>;
  assert.deepEqual(listed, [{ accessKey: key, parent: 'jack', status: 'enabled', expiration: null }]);
  const info = ok(await root('GET', `service-accounts/${key}`));
  assert.equal(info['secretKey'], undefined);
  assert.equal(info['policy'], null);
  const saClient = client(key, String(sa['secretKey']));
  await saClient.send(new PutObjectCommand({ Bucket: 'two', Key: 'by-sa', Body: 'sa' }));
  const narrow = ok(await root('PUT', 'service-accounts', {
    parent: 'jack', accessKey: 'jack-reader', secretKey: 'jack-reader-secret',
    policy: policy({ Effect: 'Allow', Action: ['s3:GetObject'], Resource: ['arn:aws:s3:::two/*'] }),
    expiration: new Date(Date.now() + 3_600_000).toISOString(),
  }));
  assert.equal(narrow['accessKey'], 'jack-reader');
  assert.equal(typeof narrow['expiration'], 'string');
  const reader = client('jack-reader', 'jack-reader-secret');
  assert.equal(await (await reader.send(new GetObjectCommand({ Bucket: 'two', Key: 'by-sa' }))).Body?.transformToString(), 'sa');
  await rejectsWith(reader.send(new PutObjectCommand({ Bucket: 'two', Key: 'no', Body: 'no' })), 'AccessDenied', 403);
  refused(await root('PUT', 'service-accounts', { parent: 'jack', accessKey: 'jack-reader' }), 409, 'UserExists');
  refused(await root('PUT', 'service-accounts', { parent: 'nobody-at-all' }), 404, 'NoSuchUser');
  refused(await root('PUT', 'service-accounts', { parent: 'jack', expiration: 'tomorrow' }), 400, 'InvalidArgument');
  refused(await root('PUT', 'service-accounts', { parent: 'jack', policy: { Version: '2012-10-17', Statement: [] } }), 400, 'MalformedPolicy');
  ok(await root('DELETE', `service-accounts/${key}`), 204);
  refused(await root('GET', `service-accounts/${key}`), 404, 'NoSuchServiceAccount');
  await rejectsWith(saClient.send(new PutObjectCommand({ Bucket: 'two', Key: 'by-sa', Body: 'sa' })), 'InvalidAccessKeyId', 403);
  // Without a parent, the caller's own account is the parent.
  const own = ok(await root('PUT', 'service-accounts', {}));
  assert.equal(own['parent'], svc.accessKey);
});
