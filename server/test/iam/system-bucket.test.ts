/**
 * The IAM records live in the internal bucket `.svc.config`; no S3 request may reach it, signed as root or not,
 * by path, percent-encoding, copy source or listing (a name starting with "." is not a valid bucket name).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { CreateBucketCommand, ListBucketsCommand } from '@aws-sdk/client-s3';
import { IAM_BUCKET } from '../../src/iam/index.js';
import { errorCode, rawRequest, signedRequest } from '../s3/helpers/raw.js';
import { startIamServer, type IamServer } from './helpers.js';

let s: IamServer;
before(async () => {
  s = await startIamServer();
  await s.iam.addUser('alice', 'alice-secret', { policies: ['readwrite'] });
  // The record exists: a refusal below is the guard's, not a missing object's.
  assert.ok(await s.storage.getObjectInfo(IAM_BUCKET, 'iam/users/alice.json'));
});
after(async () => { await s.close(); });

const paths = [
  '/.svc.config/iam/users/alice.json',
  '/.svc.config',
  '/.svc.config/',
  '/%2Esvc.config/iam/users/alice.json',
  '/%2esvc%2econfig/iam/users/alice.json',
];

test('requests addressing .svc.config are InvalidBucketName, anonymous or signed as root, whatever the method', async () => {
  for (const path of paths) {
    for (const method of ['GET', 'HEAD', 'PUT', 'DELETE']) {
      const anon = await rawRequest(s.port, { method, path });
      assert.equal(anon.status, 400, `anonymous ${method} ${path}`);
      if (method !== 'HEAD') assert.equal(errorCode(anon.body), 'InvalidBucketName');
      const signed = await signedRequest(s.port, { method, path, ...(method === 'PUT' ? { body: 'overwrite' } : {}) });
      assert.equal(signed.status, 400, `root ${method} ${path}`);
      if (method !== 'HEAD') assert.equal(errorCode(signed.body), 'InvalidBucketName');
      assert.doesNotMatch(signed.body, /alice-secret/);
    }
  }
  assert.equal((await s.iam.lookupSecret('alice')), 'alice-secret', 'nothing was overwritten or deleted');
});

test('a copy from .svc.config is refused and ListBuckets does not show it', async () => {
  const root = s.client();
  await root.send(new CreateBucketCommand({ Bucket: 'target' }));
  for (const source of ['.svc.config/iam/users/alice.json', '/.svc.config/iam/users/alice.json', '%2Esvc.config/iam/users/alice.json']) {
    const r = await signedRequest(s.port, { method: 'PUT', path: '/target/stolen', headers: { 'x-amz-copy-source': source } });
    assert.equal(r.status, 400, source);
    assert.equal(errorCode(r.body), 'InvalidBucketName');
  }
  const names = (await root.send(new ListBucketsCommand({}))).Buckets?.map((b) => b.Name);
  assert.deepEqual(names, ['target']);
  const user = await s.client('alice', 'alice-secret').send(new ListBucketsCommand({}));
  assert.deepEqual(user.Buckets?.map((b) => b.Name), ['target']);
});
