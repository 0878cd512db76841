import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CreateBucketCommand, GetBucketVersioningCommand, PutBucketVersioningCommand, S3ServiceException,
} from '@aws-sdk/client-s3';
import { startS3, type S3Harness } from './helpers/harness.js';
import { errorCode, signedRequest } from './helpers/raw.js';

let h: S3Harness;
before(async () => {
  h = await startS3();
  await h.client.send(new CreateBucketCommand({ Bucket: 'vconf' }));
});
after(async () => { await h.close(); });

const statusOf = async (bucket: string): Promise<string | undefined> =>
  (await h.client.send(new GetBucketVersioningCommand({ Bucket: bucket }))).Status;

function putRaw(bucket: string, body: string) {
  return signedRequest(h.port, { method: 'PUT', path: `/${bucket}`, query: { versioning: '' }, body });
}

test('GetBucketVersioning of a never-versioned bucket is an empty VersioningConfiguration', async () => {
  const res = await signedRequest(h.port, { method: 'GET', path: '/vconf', query: { versioning: '' } });
  assert.equal(res.status, 200);
  assert.match(res.body, /<VersioningConfiguration xmlns="http:\/\/s3.amazonaws.com\/doc\/2006-03-01\/"><\/VersioningConfiguration>/);
  assert.equal(await statusOf('vconf'), undefined);
});

test('PutBucketVersioning Enabled, Suspended, Enabled; a body without Status keeps the state', async () => {
  await h.client.send(new PutBucketVersioningCommand({ Bucket: 'vconf', VersioningConfiguration: { Status: 'Enabled' } }));
  assert.equal(await statusOf('vconf'), 'Enabled');
  await h.client.send(new PutBucketVersioningCommand({ Bucket: 'vconf', VersioningConfiguration: { Status: 'Suspended' } }));
  assert.equal(await statusOf('vconf'), 'Suspended');
  // There is no way back to "unversioned": an empty configuration leaves Suspended in place.
  const empty = await putRaw('vconf', '<VersioningConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"></VersioningConfiguration>');
  assert.equal(empty.status, 200);
  assert.equal(await statusOf('vconf'), 'Suspended');
  await h.client.send(new PutBucketVersioningCommand({ Bucket: 'vconf', VersioningConfiguration: { Status: 'Enabled', MFADelete: 'Disabled' } }));
  assert.equal(await statusOf('vconf'), 'Enabled');
});

test('an illegal status, broken XML and a wrong root are MalformedXML; the state is unchanged', async () => {
  await h.client.send(new CreateBucketCommand({ Bucket: 'vbad' }));
  await assert.rejects(
    h.client.send(new PutBucketVersioningCommand({ Bucket: 'vbad', VersioningConfiguration: { Status: 'Disabled' as 'Enabled' } })),
    (e: unknown) => e instanceof S3ServiceException && e.name === 'MalformedXML' && e.$metadata.httpStatusCode === 400,
  );
  for (const body of ['<VersioningConfiguration><Status>enabled</Status></VersioningConfiguration>', '<VersioningConfiguration><Status>',
    '<Versioning><Status>Enabled</Status></Versioning>', '<VersioningConfiguration><MfaDelete>Maybe</MfaDelete></VersioningConfiguration>']) {
    const res = await putRaw('vbad', body);
    assert.equal(res.status, 400, body);
    assert.equal(errorCode(res.body), 'MalformedXML', body);
  }
  assert.equal(await statusOf('vbad'), undefined);
});

test('MFA delete cannot be enabled; a missing bucket is NoSuchBucket for both operations', async () => {
  const mfa = await putRaw('vconf', '<VersioningConfiguration><Status>Enabled</Status><MfaDelete>Enabled</MfaDelete></VersioningConfiguration>');
  assert.equal(mfa.status, 501);
  await assert.rejects(h.client.send(new GetBucketVersioningCommand({ Bucket: 'nope-missing' })), (e: unknown) => e instanceof S3ServiceException && e.name === 'NoSuchBucket');
  await assert.rejects(
    h.client.send(new PutBucketVersioningCommand({ Bucket: 'nope-missing', VersioningConfiguration: { Status: 'Enabled' } })),
    (e: unknown) => e instanceof S3ServiceException && e.name === 'NoSuchBucket',
  );
});
