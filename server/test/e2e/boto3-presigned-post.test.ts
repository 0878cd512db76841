/**
 * Must show 2 (issue 8), presigned POST: Debian's python3-boto3 builds a browser upload form with
 * generate_presigned_post, and a plain urllib multipart/form-data POST (no requests library) uploads through it;
 * the policy's conditions (key prefix, content-length-range) are enforced.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BOTO3_PRELUDE, boto3Suite } from '../helpers/boto3.js';

const suite = boto3Suite('presigned-post', { drives: 4 });

const SCRIPT = `${BOTO3_PRELUDE}import sys, uuid, urllib.request, urllib.error, boto3
B = 'boto-post'
s3.create_bucket(Bucket=B)

def upload(post, filename, data, extra=None):
    boundary = uuid.uuid4().hex
    fields = dict(post['fields'])
    fields.update(extra or {})
    body = b''
    for k, v in fields.items():
        body += ('--%s\\r\\nContent-Disposition: form-data; name="%s"\\r\\n\\r\\n%s\\r\\n' % (boundary, k, v)).encode()
    body += ('--%s\\r\\nContent-Disposition: form-data; name="file"; filename="%s"\\r\\nContent-Type: application/octet-stream\\r\\n\\r\\n' % (boundary, filename)).encode()
    body += data + ('\\r\\n--%s--\\r\\n' % boundary).encode()
    req = urllib.request.Request(post['url'], data=body, method='POST',
                                 headers={'Content-Type': 'multipart/form-data; boundary=' + boundary})
    try:
        with urllib.request.urlopen(req) as res:
            return res.status, res.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()

post = s3.generate_presigned_post(B, 'uploads/\${filename}',
                                  Fields={'success_action_status': '201', 'Content-Type': 'text/plain'},
                                  Conditions=[{'success_action_status': '201'}, ['starts-with', '$Content-Type', 'text/'],
                                              ['content-length-range', 1, 1024]],
                                  ExpiresIn=600)
status, text = upload(post, 'hello.txt', b'hello from a browser form')
assert status == 201, (status, text)
assert '<Key>uploads/hello.txt</Key>' in text, text
obj = s3.get_object(Bucket=B, Key='uploads/hello.txt')
assert obj['Body'].read() == b'hello from a browser form'
assert obj['ContentType'] == 'text/plain', obj['ContentType']

status, text = upload(post, 'big.txt', b'x' * 2048)
assert status == 400 and '<Code>EntityTooLarge</Code>' in text, (status, text)
status, text = upload(post, 'other.txt', b'data', {'Content-Type': 'image/png'})
assert status == 403 and 'Invalid according to Policy' in text, (status, text)

fixed = s3.generate_presigned_post(B, 'exact.bin', ExpiresIn=600)
status, text = upload(fixed, 'ignored.bin', b'exact bytes')
assert status == 204, (status, text)
assert s3.get_object(Bucket=B, Key='exact.bin')['Body'].read() == b'exact bytes'
tampered = {'url': fixed['url'], 'fields': dict(fixed['fields'], key='elsewhere.bin')}
status, text = upload(tampered, 'x', b'data')
assert status == 403 and '<Code>AccessDenied</Code>' in text, (status, text)
keys = sorted(o['Key'] for o in s3.list_objects_v2(Bucket=B)['Contents'])
assert keys == ['exact.bin', 'uploads/hello.txt'], keys
print('boto3 presigned post ok', boto3.__version__)
`;

test('boto3: generate_presigned_post forms upload through urllib; policy conditions are enforced', async () => {
  const r = await suite.run('presigned_post', SCRIPT);
  assert.match(r.stdout, /boto3 presigned post ok/);
});
