import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testCluster } from '../../storage/engine/testing.js';
import { IamError } from './iam-errors.js';
import type { IamErrorCode } from './iam-errors.js';
import { objectLayerPersistence } from './iam-persistence.js';
import { IamStore } from './iam-store.js';

const root = { accessKey: 'root-access', secretKey: 'root-secret-key' };
const write = (bucket: string, key: string) => ({ action: 's3:PutObject', resource: `arn:aws:s3:::${bucket}/${key}`, context: {} });
const isIam = (code: IamErrorCode) => (err: unknown) => err instanceof IamError && err.code === code;

test('IamStore groups: members inherit enabled group policies, persisted and reloaded by a peer, and refusals are typed', async (t) => {
  const cluster = await testCluster(1, 4, 2);
  t.after(() => cluster.cleanup());
  const storage = await cluster.open();
  const a = new IamStore({ root, persistence: objectLayerPersistence(storage) });
  const b = new IamStore({ root, persistence: objectLayerPersistence(storage) });
  await Promise.all([a.load(), b.load()]);
  await a.putPolicy('rw-data', JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 's3:*', Resource: 'arn:aws:s3:::data/*' }] }));
  await a.addUser('gina', 'gina-secret');
  await a.addUser('hank', 'hank-secret');
  await b.load();
  assert.equal(a.decide('gina', write('data', 'k')), 'implicit-deny');

  assert.deepEqual(await a.putGroup('writers', { members: ['gina'], policies: ['rw-data'] }),
    { name: 'writers', members: ['gina'], policies: ['rw-data'], status: 'enabled' });
  assert.equal(a.decide('gina', write('data', 'k')), 'allow');
  assert.equal(a.decide('gina', write('other', 'k')), 'implicit-deny');
  assert.equal(a.decide('hank', write('data', 'k')), 'implicit-deny');
  assert.deepEqual(a.groupsOf('gina'), ['writers']);

  // A peer reloads the named record and decides the same.
  assert.equal(b.decide('gina', write('data', 'k')), 'implicit-deny');
  await b.reload([{ kind: 'group', name: 'writers' }]);
  assert.equal(b.decide('gina', write('data', 'k')), 'allow');
  // A fresh load reads groups back from the store.
  const c = new IamStore({ root, persistence: objectLayerPersistence(storage) });
  await c.load();
  assert.deepEqual(c.listGroups(), a.listGroups());

  await assert.rejects(a.putGroup('writers', { members: ['nobody'] }), isIam('NoSuchUser'));
  await assert.rejects(a.putGroup('writers', { policies: ['no-policy'] }), isIam('NoSuchPolicy'));
  await assert.rejects(a.putGroup('bad/name'), isIam('InvalidGroupName'));
  await assert.rejects(a.updateGroupMembers('nope', ['gina'], []), isIam('NoSuchGroup'));
  await assert.rejects(a.removeGroup('writers'), isIam('GroupNotEmpty'));
  await assert.rejects(a.removePolicy('rw-data'), isIam('PolicyInUse'));

  assert.deepEqual((await a.updateGroupMembers('writers', ['hank'], ['gina'])).members, ['hank']);
  assert.equal(a.decide('gina', write('data', 'k')), 'implicit-deny');
  assert.equal(a.decide('hank', write('data', 'k')), 'allow');
  assert.deepEqual((await a.updateGroupPolicies('writers', ['readonly'], ['rw-data'])).policies, ['readonly']);
  assert.equal(a.decide('hank', write('data', 'k')), 'implicit-deny');

  // Removing a member user takes it out of the group; then the empty group can go.
  await a.removeUser('hank');
  assert.deepEqual(a.getGroup('writers')?.members, []);
  await a.removeGroup('writers');
  assert.equal(a.getGroup('writers'), undefined);
  await a.removePolicy('rw-data');
});
