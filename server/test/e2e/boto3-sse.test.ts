/**
 * Server-side encryption with a real client: Debian's python3-boto3 against a started server with a local KMS —
 * SSE-C PUT/GET/HEAD (botocore computes the key MD5), multipart through the transfer manager with SSE-C,
 * SSE-S3, copies between them, and GetObjectAttributes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { BOTO3_PRELUDE, boto3Suite } from '../helpers/boto3.js';

const suite = boto3Suite('sse', { drives: 4, env: { SVC_KMS_SECRET_KEY: `boto-key:${randomBytes(32).toString('base64')}` } });

const SCRIPT = `${BOTO3_PRELUDE}import base64, io, os, sys, hashlib, boto3
from boto3.s3.transfer import TransferConfig
B = 'boto-sse'
s3.create_bucket(Bucket=B)
key = os.urandom(16).hex()  # 32 ASCII characters: botocore takes str keys for every operation
ssec = {'SSECustomerAlgorithm': 'AES256', 'SSECustomerKey': key}

s3.put_object(Bucket=B, Key='c.txt', Body=b'customer encrypted', **ssec)
assert s3.get_object(Bucket=B, Key='c.txt', **ssec)['Body'].read() == b'customer encrypted'
assert s3.head_object(Bucket=B, Key='c.txt', **ssec)['ContentLength'] == 18
for kwargs, status in (({}, 400), ({'SSECustomerAlgorithm': 'AES256', 'SSECustomerKey': os.urandom(16).hex()}, 403)):
    try:
        s3.get_object(Bucket=B, Key='c.txt', **kwargs)
        raise SystemExit('GET without the right key should fail')
    except ClientError as e:
        assert e.response['ResponseMetadata']['HTTPStatusCode'] == status, e.response

data = os.urandom(12 * 1024 * 1024 + 5)
cfg = TransferConfig(multipart_threshold=5 * 1024 * 1024, multipart_chunksize=5 * 1024 * 1024)
s3.upload_fileobj(io.BytesIO(data), B, 'big.bin', ExtraArgs=dict(ssec), Config=cfg)
out = io.BytesIO()
s3.download_fileobj(B, 'big.bin', out, ExtraArgs=dict(ssec), Config=cfg)
assert out.getvalue() == data
part = s3.get_object(Bucket=B, Key='big.bin', Range='bytes=5242870-5242889', **ssec)['Body'].read()
assert part == data[5242870:5242890]
# This botocore encodes the key and computes its MD5 for GET/PUT but not for GetObjectAttributes: both are given
# as they go on the wire.
attrs = s3.get_object_attributes(Bucket=B, Key='big.bin', ObjectAttributes=['ObjectSize', 'ObjectParts'], SSECustomerAlgorithm='AES256',
                                 SSECustomerKey=base64.b64encode(key.encode()).decode(),
                                 SSECustomerKeyMD5=base64.b64encode(hashlib.md5(key.encode()).digest()).decode())
assert attrs['ObjectSize'] == len(data), attrs
assert attrs['ObjectParts']['TotalPartsCount'] == 3, attrs

put = s3.put_object(Bucket=B, Key='s3.txt', Body=b'kms sealed', ServerSideEncryption='AES256')
assert put['ServerSideEncryption'] == 'AES256' and put['ETag'] == '"%s"' % hashlib.md5(b'kms sealed').hexdigest(), put
s3.copy_object(Bucket=B, Key='from-c.txt', CopySource={'Bucket': B, 'Key': 'c.txt'},
               CopySourceSSECustomerAlgorithm='AES256', CopySourceSSECustomerKey=key, ServerSideEncryption='AES256')
got = s3.get_object(Bucket=B, Key='from-c.txt')
assert got['ServerSideEncryption'] == 'AES256' and got['Body'].read() == b'customer encrypted'
print('boto3 sse ok', boto3.__version__)
`;

test('boto3: SSE-C objects and multipart transfers, SSE-S3, copies between them, GetObjectAttributes', async () => {
  const r = await suite.run('sse', SCRIPT);
  assert.match(r.stdout, /boto3 sse ok/);
});
