/**
 * Must show 2 (issue 8), versioning: Debian's python3-boto3 against a started server — enable versioning, two
 * PUTs, list_object_versions, get by VersionId, delete → delete marker, removing the marker restores the object.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BOTO3_PRELUDE, boto3Suite } from '../helpers/boto3.js';

const suite = boto3Suite('versioning', { drives: 4 });

const SCRIPT = `${BOTO3_PRELUDE}import sys, boto3
B = 'boto-versions'
s3.create_bucket(Bucket=B)
assert 'Status' not in s3.get_bucket_versioning(Bucket=B)
s3.put_bucket_versioning(Bucket=B, VersioningConfiguration={'Status': 'Enabled'})
assert s3.get_bucket_versioning(Bucket=B)['Status'] == 'Enabled'

v1 = s3.put_object(Bucket=B, Key='notes.txt', Body=b'first draft')['VersionId']
v2 = s3.put_object(Bucket=B, Key='notes.txt', Body=b'second draft, longer')['VersionId']
assert v1 and v2 and v1 != v2, (v1, v2)

listing = s3.list_object_versions(Bucket=B)
versions = [(v['Key'], v['VersionId'], v['IsLatest'], v['Size']) for v in listing['Versions']]
assert versions == [('notes.txt', v2, True, 20), ('notes.txt', v1, False, 11)], versions
assert 'DeleteMarkers' not in listing, listing

assert s3.get_object(Bucket=B, Key='notes.txt', VersionId=v1)['Body'].read() == b'first draft'
assert s3.get_object(Bucket=B, Key='notes.txt')['Body'].read() == b'second draft, longer'
assert s3.head_object(Bucket=B, Key='notes.txt', VersionId=v1)['ContentLength'] == 11

deleted = s3.delete_object(Bucket=B, Key='notes.txt')
assert deleted['DeleteMarker'] is True, deleted
marker = deleted['VersionId']
try:
    s3.get_object(Bucket=B, Key='notes.txt')
    raise SystemExit('GET after delete should fail')
except ClientError as e:
    assert e.response['Error']['Code'] == 'NoSuchKey', e.response
    assert e.response['ResponseMetadata']['HTTPHeaders'].get('x-amz-delete-marker') == 'true', e.response
try:
    s3.get_object(Bucket=B, Key='notes.txt', VersionId='0a1b2c3d-0000-4000-8000-000000000000')
    raise SystemExit('GET of an unknown version should fail')
except ClientError as e:
    assert e.response['Error']['Code'] == 'NoSuchVersion', e.response
listing = s3.list_object_versions(Bucket=B)
markers = [(m['Key'], m['VersionId'], m['IsLatest']) for m in listing['DeleteMarkers']]
assert markers == [('notes.txt', marker, True)], markers
assert [v['IsLatest'] for v in listing['Versions']] == [False, False]
assert s3.list_objects_v2(Bucket=B)['KeyCount'] == 0

removed = s3.delete_object(Bucket=B, Key='notes.txt', VersionId=marker)
assert removed['DeleteMarker'] is True and removed['VersionId'] == marker, removed
assert s3.get_object(Bucket=B, Key='notes.txt')['Body'].read() == b'second draft, longer'
assert [o['Key'] for o in s3.list_objects_v2(Bucket=B)['Contents']] == ['notes.txt']

for v in s3.list_object_versions(Bucket=B)['Versions']:
    s3.delete_object(Bucket=B, Key=v['Key'], VersionId=v['VersionId'])
s3.delete_bucket(Bucket=B)
print('boto3 versioning ok', boto3.__version__)
`;

test('boto3: enable versioning, two PUTs, list_object_versions, get by VersionId, delete marker and its removal', async () => {
  const r = await suite.run('versioning', SCRIPT);
  assert.match(r.stdout, /boto3 versioning ok/);
});
