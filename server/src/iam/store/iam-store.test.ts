import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collect, put, testCluster } from '../../storage/engine/testing.js';
import type { Storage } from '../../storage/index.js';
import { IamError } from './iam-errors.js';
import type { IamErrorCode } from './iam-errors.js';
import { IAM_BUCKET, objectLayerPersistence } from './iam-persistence.js';
import { IamStore } from './iam-store.js';
import type { IamStoreOptions } from './iam-store.js';
import type { IamChange } from './iam-codec.js';

const root = { accessKey: 'root-access', secretKey: 'root-secret-key' };
const read = (bucket: string, key: string) => ({ action: 's3:GetObject', resource: `arn:aws:s3:::${bucket}/${key}`, context: {} });
const write = (bucket: string, key: string) => ({ action: 's3:PutObject', resource: `arn:aws:s3:::${bucket}/${key}`, context: {} });

async function setup(t: { after(fn: () => Promise<void>): void }): Promise<{ storage: Storage; store(opts?: Partial<IamStoreOptions>): Promise<IamStore> }> {
  const cluster = await testCluster(1, 4, 2);
  t.after(() => cluster.cleanup());
  const storage = await cluster.open();
  return {
    storage,
    async store(opts = {}) {
      const s = new IamStore({ root, persistence: objectLayerPersistence(storage), ...opts });
      await s.load();
      return s;
    },
  };
}

function isIam(code: IamErrorCode): (err: unknown) => boolean {
  return (err: unknown) => err instanceof IamError && err.code === code;
}

test('IamStore: not ready and refusing queries before the first load; an empty store loads ready with the built-in policies', async (t) => {
  const { storage } = await setup(t);
  const iam = new IamStore({ root, persistence: objectLayerPersistence(storage) });
  assert.equal(iam.ready(), false);
  assert.throws(() => iam.listUsers(), isIam('NotReady'));
  await assert.rejects(iam.addUser('alice', 'alice-secret'), isIam('NotReady'));
  assert.equal(await iam.lookupSecret(root.accessKey), root.secretKey, 'root signs before IAM is loaded');
  await iam.load();
  assert.equal(iam.ready(), true);
  assert.deepEqual(iam.listUsers(), []);
  assert.deepEqual(iam.listPolicies().map((p) => [p.name, p.builtIn]),
    [['consoleAdmin', true], ['diagnostics', true], ['readonly', true], ['readwrite', true], ['writeonly', true]]);
});

test('IamStore: users persist as objects of the hidden system bucket and load into a second instance', async (t) => {
  const { storage, store } = await setup(t);
  const a = await store();
  const info = await a.addUser('alice', 'alice-secret', { policies: ['readonly'] });
  assert.deepEqual({ ...info, updatedAt: '' }, { accessKey: 'alice', status: 'enabled', policies: ['readonly'], updatedAt: '' });
  assert.equal('secretKey' in info, false, 'infos never carry the secret');
  const stored = JSON.parse((await collect((await storage.openObject(IAM_BUCKET, 'iam/users/alice.json')).read())).toString());
  assert.equal(stored.version, 1);
  assert.equal(stored.secretKey, 'alice-secret');
  assert.deepEqual((await storage.listBuckets()).map((b) => b.name), [], 'the system bucket is hidden from ListBuckets');
  const b = await store();
  assert.equal(await b.lookupSecret('alice'), 'alice-secret');
  assert.equal(await b.lookupSecret('nobody'), undefined);
  assert.deepEqual(b.getUser('alice')?.policies, ['readonly']);
});

test('IamStore: validation refuses bad input with typed errors', async (t) => {
  const { store } = await setup(t);
  const iam = await store();
  await iam.addUser('alice', 'alice-secret');
  const cases: Array<[string, () => Promise<unknown>, IamErrorCode]> = [
    ['a 2-character access key', () => iam.addUser('ab', 'long-enough'), 'InvalidAccessKey'],
    ['a 129-character access key', () => iam.addUser('a'.repeat(129), 'long-enough'), 'InvalidAccessKey'],
    ['a slash in the access key', () => iam.addUser('a/b', 'long-enough'), 'InvalidAccessKey'],
    ['a 7-character secret', () => iam.addUser('bob', 'short12'), 'InvalidSecretKey'],
    ['a 41-character secret', () => iam.addUser('bob', 's'.repeat(41)), 'InvalidSecretKey'],
    ['an unknown policy', () => iam.addUser('bob', 'bob-secret', { policies: ['nope'] }), 'NoSuchPolicy'],
    ['a duplicate user', () => iam.addUser('alice', 'other-secret'), 'UserExists'],
    ['the root access key', () => iam.addUser(root.accessKey, 'other-secret'), 'ReservedAccessKey'],
    ['a bad status', () => iam.setUserStatus('alice', 'paused' as 'enabled'), 'InvalidStatus'],
    ['a missing user', () => iam.attachPolicies('bob', ['readonly']), 'NoSuchUser'],
    ['replacing a built-in policy', () => iam.putPolicy('readwrite', '{}'), 'CannedPolicy'],
    ['removing a built-in policy', () => iam.removePolicy('readonly'), 'CannedPolicy'],
    ['a malformed policy', () => iam.putPolicy('p1', '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:*","Resource":"*"}]}'), 'MalformedPolicy'],
    ['a bad policy name', () => iam.putPolicy('../x', '{}'), 'InvalidPolicyName'],
    ['removing a missing policy', () => iam.removePolicy('p9'), 'NoSuchPolicy'],
    ['a service account of a missing parent', () => iam.addServiceAccount({ parent: 'bob' }), 'NoSuchUser'],
    ['a service account on a user key', () => iam.addServiceAccount({ parent: 'alice', accessKey: 'alice' }), 'UserExists'],
    ['an expiration in the past', () => iam.addServiceAccount({ parent: 'alice', expiration: new Date(Date.now() - 1000) }), 'InvalidExpiration'],
    ['removing a missing service account', () => iam.removeServiceAccount('nope'), 'NoSuchServiceAccount'],
  ];
  for (const [name, run, code] of cases) await assert.rejects(run(), isIam(code), name);
  await iam.putPolicy('p1', JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 's3:GetObject', Resource: 'arn:aws:s3:::b/*' }] }));
  await iam.attachPolicies('alice', ['p1']);
  await assert.rejects(iam.removePolicy('p1'), isIam('PolicyInUse'));
  await iam.detachPolicies('alice', ['p1']);
  await iam.removePolicy('p1');
  assert.equal(iam.getPolicy('p1'), undefined);
});

test('IamStore: identity decisions: attached policies, explicit Deny, disabled users, root', async (t) => {
  const { store } = await setup(t);
  const iam = await store();
  await iam.addUser('reader', 'reader-secret', { policies: ['readonly'] });
  await iam.addUser('writer', 'writer-secret', { policies: ['readwrite'] });
  await iam.putPolicy('no-secrets', JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Deny', Action: 's3:*', Resource: 'arn:aws:s3:::b/secret/*' }] }));
  await iam.attachPolicies('writer', ['no-secrets']);
  assert.equal(iam.decide('reader', read('b', 'k')), 'allow');
  assert.equal(iam.decide('reader', write('b', 'k')), 'implicit-deny');
  assert.equal(iam.decide('writer', write('b', 'k')), 'allow');
  assert.equal(iam.decide('writer', read('b', 'secret/k')), 'deny');
  assert.equal(iam.decide('stranger', read('b', 'k')), 'deny');
  assert.equal(iam.isRoot(root.accessKey), true);
  assert.equal(iam.isRoot('writer'), false);
  assert.equal(iam.decide(root.accessKey, write('b', 'secret/k')), 'allow');
  await iam.setUserStatus('writer', 'disabled');
  assert.equal(await iam.lookupSecret('writer'), undefined);
  assert.equal(iam.decide('writer', write('b', 'k')), 'deny');
  await iam.setUserStatus('writer', 'enabled');
  await iam.setUserSecret('writer', 'new-writer-secret');
  assert.equal(await iam.lookupSecret('writer'), 'new-writer-secret');
});

test('IamStore: service accounts inherit the parent, an inline policy narrows it, expiry and parent status apply', async (t) => {
  let now = new Date('2030-01-01T00:00:00Z');
  const { store } = await setup(t);
  const iam = await store({ now: () => now });
  await iam.addUser('parent', 'parent-secret', { policies: ['readwrite'] });
  const plain = await iam.addServiceAccount({ parent: 'parent' });
  assert.equal(plain.accessKey.length, 20);
  assert.equal(await iam.lookupSecret(plain.accessKey), plain.secretKey);
  assert.equal(iam.decide(plain.accessKey, write('b', 'k')), 'allow');
  const narrow = await iam.addServiceAccount({
    parent: 'parent', accessKey: 'narrow-sa', secretKey: 'narrow-secret',
    policy: JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: ['s3:GetObject', 'admin:*'], Resource: 'arn:aws:s3:::b/*' }] }),
    expiration: new Date('2030-01-02T00:00:00Z'),
  });
  assert.equal(iam.decide(narrow.accessKey, read('b', 'k')), 'allow', 'both allow');
  assert.equal(iam.decide(narrow.accessKey, write('b', 'k')), 'implicit-deny', 'the inline policy does not allow PUT');
  assert.equal(iam.decide(narrow.accessKey, read('other', 'k')), 'implicit-deny', 'the inline policy is limited to b');
  assert.equal(iam.decide(narrow.accessKey, { action: 'admin:ServerInfo', resource: '*', context: {} }), 'implicit-deny', 'the parent has no admin rights');
  const ofRoot = await iam.addServiceAccount({ parent: root.accessKey });
  assert.equal(iam.decide(ofRoot.accessKey, write('any', 'k')), 'allow', 'a service account of root inherits everything');
  assert.deepEqual(iam.listServiceAccounts('parent').map((s) => s.accessKey).sort(), [narrow.accessKey, plain.accessKey].sort());
  now = new Date('2030-01-03T00:00:00Z');
  assert.equal(await iam.lookupSecret(narrow.accessKey), undefined, 'expired');
  assert.equal(iam.decide(narrow.accessKey, read('b', 'k')), 'deny');
  await iam.setUserStatus('parent', 'disabled');
  assert.equal(await iam.lookupSecret(plain.accessKey), undefined, 'the parent is disabled');
  await iam.setUserStatus('parent', 'enabled');
  await iam.setServiceAccountStatus(plain.accessKey, 'disabled');
  assert.equal(await iam.lookupSecret(plain.accessKey), undefined);
  await iam.removeUser('parent');
  assert.deepEqual(iam.listServiceAccounts().map((s) => s.accessKey), [ofRoot.accessKey], 'removing a user removes its service accounts');
  const reloaded = await store();
  assert.deepEqual(reloaded.listServiceAccounts().map((s) => s.accessKey), [ofRoot.accessKey]);
  assert.equal(reloaded.getUser('parent'), undefined);
});

test('IamStore: peers are notified after persisting; a failing notifier is logged, never thrown', async (t) => {
  const { storage, store } = await setup(t);
  const seen: Array<{ changes: readonly IamChange[]; persisted: boolean }> = [];
  const warnings: string[] = [];
  const iam = await store({
    notify: async (changes) => {
      const persisted = (await storage.getObjectInfo(IAM_BUCKET, 'iam/users/carol.json').then(() => true, () => false));
      seen.push({ changes, persisted });
      if (seen.length > 1) throw new Error('peer 127.0.0.9:9000 unreachable');
    },
    logger: { info() {}, warn: (m) => warnings.push(m) },
  });
  await iam.addUser('carol', 'carol-secret');
  assert.deepEqual(seen, [{ changes: [{ kind: 'user', name: 'carol' }], persisted: true }]);
  await iam.removeUser('carol');
  assert.deepEqual(seen[1]?.changes, [{ kind: 'user', name: 'carol' }]);
  assert.match(warnings.join('\n'), /not announced to peers.*unreachable/);
});

test('IamStore: a targeted reload picks up exactly the named records; a corrupt record is skipped and reported', async (t) => {
  const { storage, store } = await setup(t);
  const a = await store();
  const warnings: string[] = [];
  const b = await store({ logger: { info() {}, warn: (m) => warnings.push(m) } });
  await a.addUser('dave', 'dave-secret');
  await a.addUser('erin', 'erin-secret');
  assert.equal(await b.lookupSecret('dave'), undefined, 'B has not been told yet');
  await b.reload([{ kind: 'user', name: 'dave' }]);
  assert.equal(await b.lookupSecret('dave'), 'dave-secret');
  assert.equal(await b.lookupSecret('erin'), undefined, 'only the named record was reloaded');
  await a.removeUser('dave');
  await b.reload([{ kind: 'user', name: 'dave' }]);
  assert.equal(b.getUser('dave'), undefined, 'a removed record leaves the cache');
  await put(storage, IAM_BUCKET, 'iam/users/mallory.json', Buffer.from('{"version":1,"accessKey":"mallory"'));
  await b.reload();
  assert.equal(await b.lookupSecret('erin'), 'erin-secret');
  assert.equal(b.getUser('mallory'), undefined);
  assert.match(warnings.join('\n'), /iam\/users\/mallory\.json skipped: .*not JSON/);
});

test('IamStore.start: a failed load is retried in the background until it succeeds', async (t) => {
  const { storage } = await setup(t);
  const persistence = objectLayerPersistence(storage);
  let failures = 2;
  const flaky = { ...persistence, checkReadable: async () => { if (failures-- > 0) throw new Error('no quorum yet'); } };
  const warnings: string[] = [];
  let loaded!: () => void;
  const loadedEvent = new Promise<void>((r) => { loaded = r; });
  const iam = new IamStore({ root, persistence: flaky, retryMs: 5, logger: { info: (m) => { if (/IAM loaded/.test(m)) loaded(); }, warn: (m) => warnings.push(m) } });
  t.after(() => iam.close());
  // The store's timers are unref'd (they must not keep a server process alive): this handle keeps the test's alive.
  const keepAlive = setInterval(() => {}, 60_000);
  t.after(() => clearInterval(keepAlive));
  await iam.start();
  assert.equal(iam.ready(), false);
  await loadedEvent;
  assert.equal(iam.ready(), true);
  assert.equal(warnings.length, 2);
  assert.match(warnings[0]!, /IAM load failed, retrying in 5 ms: no quorum yet/);
});
