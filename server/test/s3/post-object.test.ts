import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import {
  CreateBucketCommand, GetObjectCommand, GetObjectTaggingCommand, HeadObjectCommand, PutBucketPolicyCommand,
} from '@aws-sdk/client-s3';
import { startS3, type S3Harness } from './helpers/harness.js';
import { postForm, signedFields } from './helpers/post-form.js';
import { rejectsWith } from './helpers/rejects.js';
import { errorCode, rawRequest } from './helpers/raw.js';

let h: S3Harness;
const B = 'post-uploads';
before(async () => {
  h = await startS3();
  await h.client.send(new CreateBucketCommand({ Bucket: B }));
});
after(async () => { await h.close(); });

function post(fields: Record<string, string>, file: Buffer | undefined, filename = 'photo.jpg', bucket = B): Promise<Response> {
  return postForm(h.endpoint, bucket, fields, file, filename);
}

async function code(res: Response): Promise<string | undefined> {
  return errorCode(await res.text());
}

test('a signed form uploads the file with ${filename}, metadata and tags; default answer 204', async () => {
  const file = randomBytes(300_000);
  const res = await post({
    key: 'uploads/${filename}',
    'Content-Type': 'image/jpeg',
    'x-amz-meta-owner': 'alice',
    tagging: '<Tagging><TagSet><Tag><Key>k</Key><Value>v</Value></Tag></TagSet></Tagging>',
    ...signedFields([{ bucket: B }, ['starts-with', '$key', 'uploads/'], ['starts-with', '$Content-Type', 'image/'],
      ['eq', '$x-amz-meta-owner', 'alice'], ['starts-with', '$tagging', ''], ['content-length-range', 1, 1_000_000]]),
  }, file);
  assert.equal(res.status, 204);
  const etag = `"${createHash('md5').update(file).digest('hex')}"`;
  assert.equal(res.headers.get('etag'), etag);
  assert.match(res.headers.get('location') ?? '', /\/post-uploads\/uploads\/photo\.jpg$/);
  const got = await h.client.send(new GetObjectCommand({ Bucket: B, Key: 'uploads/photo.jpg' }));
  assert.ok(Buffer.from(await got.Body!.transformToByteArray()).equals(file));
  assert.equal(got.ContentType, 'image/jpeg');
  assert.deepEqual(got.Metadata, { owner: 'alice' });
  const tags = await h.client.send(new GetObjectTaggingCommand({ Bucket: B, Key: 'uploads/photo.jpg' }));
  assert.deepEqual(tags.TagSet, [{ Key: 'k', Value: 'v' }]);
});

test('success_action_status 201 answers the PostResponse document, 200 an empty body; redirect is 303', async () => {
  const cond = [{ bucket: B }, ['starts-with', '$key', ''], ['starts-with', '$success_action_status', ''], ['starts-with', '$success_action_redirect', '']];
  const created = await post({ key: 'a201', success_action_status: '201', ...signedFields(cond) }, Buffer.from('x'));
  assert.equal(created.status, 201);
  const xml = await created.text();
  assert.match(xml, /<PostResponse><Location>[^<]+\/post-uploads\/a201<\/Location><Bucket>post-uploads<\/Bucket><Key>a201<\/Key><ETag>&quot;[0-9a-f]{32}&quot;<\/ETag><\/PostResponse>/);
  const ok = await post({ key: 'a200', success_action_status: '200', ...signedFields(cond) }, Buffer.from('x'));
  assert.equal(ok.status, 200);
  assert.equal(await ok.text(), '');
  const redirected = await post({ key: 'a303', success_action_redirect: 'https://app.example/done?x=1', ...signedFields(cond) }, Buffer.from('yy'));
  assert.equal(redirected.status, 303);
  const loc = new URL(redirected.headers.get('location')!);
  assert.equal(loc.origin + loc.pathname, 'https://app.example/done');
  assert.equal(loc.searchParams.get('x'), '1');
  assert.equal(loc.searchParams.get('bucket'), B);
  assert.equal(loc.searchParams.get('key'), 'a303');
  assert.match(loc.searchParams.get('etag') ?? '', /^"[0-9a-f]{32}"$/);
});

test('policy conditions are enforced with AccessDenied "Invalid according to Policy"', async () => {
  const wrongKey = await post({ key: 'other/x', ...signedFields([{ bucket: B }, ['starts-with', '$key', 'uploads/']]) }, Buffer.from('x'));
  assert.equal(wrongKey.status, 403);
  const body = await wrongKey.text();
  assert.equal(errorCode(body), 'AccessDenied');
  assert.match(body, /Invalid according to Policy: Policy Condition failed: \[&quot;starts-with&quot;, &quot;\$key&quot;, &quot;uploads\/&quot;\]/);

  const wrongBucket = await post({ key: 'k', ...signedFields([{ bucket: 'another' }, ['starts-with', '$key', '']]) }, Buffer.from('x'));
  assert.equal(wrongBucket.status, 403);
  const extra = await post({ key: 'k', 'x-amz-meta-sneaky': '1', ...signedFields([{ bucket: B }, ['starts-with', '$key', '']]) }, Buffer.from('x'));
  assert.equal(extra.status, 403);
  assert.match(await extra.text(), /Extra input fields: x-amz-meta-sneaky/);
  const ignored = await post({ key: 'ignored-ok', 'x-ignore-me': '1', ...signedFields([{ bucket: B }, ['starts-with', '$key', '']]) }, Buffer.from('x'));
  assert.equal(ignored.status, 204);

  const expired = await post({ key: 'k', ...signedFields([{ bucket: B }, ['starts-with', '$key', '']], { expiration: new Date(Date.now() - 1000) }) }, Buffer.from('x'));
  assert.equal(expired.status, 403);
  assert.match(await expired.text(), /Invalid according to Policy: Policy expired\./);
  await rejectsWith(h.client.send(new HeadObjectCommand({ Bucket: B, Key: 'other/x' })), 'NotFound', 404);
});

test('content-length-range: too large is EntityTooLarge, too small EntityTooSmall, nothing stored', async () => {
  const cond = [{ bucket: B }, ['starts-with', '$key', ''], ['content-length-range', 10, 1000]];
  const big = await post({ key: 'too-big', ...signedFields(cond) }, randomBytes(200_000));
  assert.equal(big.status, 400);
  assert.equal(await code(big), 'EntityTooLarge');
  const small = await post({ key: 'too-small', ...signedFields(cond) }, Buffer.from('abc'));
  assert.equal(small.status, 400);
  assert.equal(await code(small), 'EntityTooSmall');
  for (const key of ['too-big', 'too-small']) await rejectsWith(h.client.send(new HeadObjectCommand({ Bucket: B, Key: key })), 'NotFound', 404);
});

test('bad signatures, unknown keys, missing fields and malformed bodies get AWS error codes', async () => {
  const cond = [{ bucket: B }, ['starts-with', '$key', '']];
  const badSig = await post({ key: 'k', ...signedFields(cond, { secret: 'wrong' }) }, Buffer.from('x'));
  assert.equal(badSig.status, 403);
  assert.equal(await code(badSig), 'SignatureDoesNotMatch');
  const unknown = await post({ key: 'k', ...signedFields(cond, { accessKey: 'AKIANOBODY' }) }, Buffer.from('x'));
  assert.equal(unknown.status, 403);
  assert.equal(await code(unknown), 'InvalidAccessKeyId');
  const noKey = await post(signedFields(cond), Buffer.from('x'));
  assert.equal(noKey.status, 400);
  assert.equal(await code(noKey), 'InvalidArgument');
  const noFile = await post({ key: 'k', ...signedFields(cond) }, undefined);
  assert.equal(noFile.status, 400);
  assert.equal(await code(noFile), 'IncorrectNumberOfFilesInPostRequest');
  const fields = signedFields(cond);
  const tampered = await post({ key: 'k', ...fields, policy: Buffer.from('{"expiration":"2100-01-01T00:00:00Z","conditions":[]}').toString('base64') }, Buffer.from('x'));
  assert.equal(tampered.status, 403);
  assert.equal(await code(tampered), 'SignatureDoesNotMatch');
  const notForm = await rawRequest(h.port, { method: 'POST', path: `/${B}`, headers: { 'content-type': 'text/plain' }, body: 'hello' });
  assert.equal(notForm.status, 412);
  const truncated = await rawRequest(h.port, {
    method: 'POST', path: `/${B}`, headers: { 'content-type': 'multipart/form-data; boundary=XYZ' }, body: '--XYZ\r\nContent-Disposition: form-data; name="key"\r\n\r\nk',
  });
  assert.equal(truncated.status, 400);
  assert.equal(errorCode(truncated.body), 'MalformedPOSTRequest');
});

test('an unsigned form is an anonymous upload: refused unless a bucket policy allows s3:PutObject', async () => {
  const refused = await post({ key: 'anon/x' }, Buffer.from('x'));
  assert.equal(refused.status, 403);
  assert.equal(await code(refused), 'AccessDenied');
  await h.client.send(new CreateBucketCommand({ Bucket: 'post-public' }));
  await h.client.send(new PutBucketPolicyCommand({
    Bucket: 'post-public',
    Policy: JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Principal: '*', Action: 's3:PutObject', Resource: 'arn:aws:s3:::post-public/drop/*' }] }),
  }));
  const allowed = await post({ key: 'drop/${filename}' }, Buffer.from('anonymous bytes'), 'note.txt', 'post-public');
  assert.equal(allowed.status, 204);
  const got = await h.client.send(new GetObjectCommand({ Bucket: 'post-public', Key: 'drop/note.txt' }));
  assert.equal(await got.Body!.transformToString(), 'anonymous bytes');
  const outside = await post({ key: 'elsewhere' }, Buffer.from('x'), 'n', 'post-public');
  assert.equal(outside.status, 403);
});
