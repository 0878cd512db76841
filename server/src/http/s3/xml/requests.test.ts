import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeCompleteMultipartUpload, decodeCreateBucketConfiguration, decodeDeleteObjects, decodeTagging } from './requests.js';
import { S3Error } from '../s3-error.js';

const isMalformed = (e: unknown): boolean => e instanceof S3Error && e.code === 'MalformedXML';

test('decodeDeleteObjects reads keys literally, Quiet and version ids', () => {
  const body = Buffer.from(
    '<?xml version="1.0" encoding="UTF-8"?><Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Quiet>true</Quiet>' +
      '<Object><Key> a&amp;b/../c </Key></Object><Object><Key>日本</Key><VersionId>null</VersionId></Object></Delete>',
  );
  assert.deepEqual(decodeDeleteObjects(body), { quiet: true, objects: [{ key: ' a&b/../c ' }, { key: '日本', versionId: 'null' }] });
  assert.equal(decodeDeleteObjects(Buffer.from('<Delete><Object><Key>k</Key></Object></Delete>')).quiet, false);
});

test('only XML entities and numeric references are decoded', () => {
  const body = Buffer.from('<Delete><Object><Key>a&amp;b&#x1;&#65;&#x65E5;&lt;&nbsp;&amp;lt;<![CDATA[&amp;]]></Key></Object></Delete>');
  assert.equal(decodeDeleteObjects(body).objects[0]?.key, 'a&b\u0001A日<&nbsp;&lt;&amp;');
});

test('decodeDeleteObjects rejects malformed, empty, keyless and oversized bodies with MalformedXML', () => {
  for (const bad of [
    '', 'not xml', '<Delete><Object><Key>a</Key></Object>', '<Other/>', '<Delete></Delete>', '<Delete><Object></Object></Delete>',
    '<Delete><Quiet>maybe</Quiet><Object><Key>a</Key></Object></Delete>',
    '<!DOCTYPE d [<!ENTITY x "y">]><Delete><Object><Key>&x;</Key></Object></Delete>',
    `<Delete>${'<Object><Key>k</Key></Object>'.repeat(1001)}</Delete>`,
  ]) {
    assert.throws(() => decodeDeleteObjects(Buffer.from(bad)), isMalformed, bad.slice(0, 40));
  }
  assert.equal(decodeDeleteObjects(Buffer.from(`<Delete>${'<Object><Key>k</Key></Object>'.repeat(1000)}</Delete>`)).objects.length, 1000);
});

test('decodeCompleteMultipartUpload unquotes ETags and keeps per-part checksums', () => {
  const body = Buffer.from(
    '<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>"aa"</ETag><ChecksumCRC32>AAAAAA==</ChecksumCRC32></Part>' +
      '<Part><ETag>bb</ETag><PartNumber>2</PartNumber></Part></CompleteMultipartUpload>',
  );
  assert.deepEqual(decodeCompleteMultipartUpload(body), [
    { partNumber: 1, etag: 'aa', checksums: { CRC32: 'AAAAAA==' } },
    { partNumber: 2, etag: 'bb', checksums: {} },
  ]);
  for (const bad of ['<CompleteMultipartUpload/>', '<CompleteMultipartUpload><Part><ETag>x</ETag></Part></CompleteMultipartUpload>',
    '<CompleteMultipartUpload><Part><PartNumber>x</PartNumber><ETag>x</ETag></Part></CompleteMultipartUpload>', '<Complete']) {
    assert.throws(() => decodeCompleteMultipartUpload(Buffer.from(bad)), isMalformed, bad);
  }
});

test('decodeCompleteMultipartUpload: part numbers outside 1..10000 and more than 10,000 parts are InvalidArgument', () => {
  const part = (n: number | string): string => `<Part><PartNumber>${n}</PartNumber><ETag>e</ETag></Part>`;
  const isInvalidArgument = (e: unknown): boolean => e instanceof S3Error && e.code === 'InvalidArgument';
  for (const n of ['0', '10001', '99999']) {
    assert.throws(() => decodeCompleteMultipartUpload(Buffer.from(`<CompleteMultipartUpload>${part(n)}</CompleteMultipartUpload>`)), isInvalidArgument, n);
  }
  assert.equal(decodeCompleteMultipartUpload(Buffer.from(`<CompleteMultipartUpload>${part(10000)}</CompleteMultipartUpload>`))[0]?.partNumber, 10000);
  const many = Array.from({ length: 10_001 }, (_, i) => part(Math.min(i + 1, 10_000))).join('');
  assert.throws(() => decodeCompleteMultipartUpload(Buffer.from(`<CompleteMultipartUpload>${many}</CompleteMultipartUpload>`)), (e: unknown) => (
    isInvalidArgument(e) && /at most 10000 parts/.test((e as Error).message)));
});

test('decodeCreateBucketConfiguration accepts an empty body or a LocationConstraint', () => {
  assert.deepEqual(decodeCreateBucketConfiguration(Buffer.alloc(0)), {});
  assert.deepEqual(
    decodeCreateBucketConfiguration(Buffer.from('<CreateBucketConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><LocationConstraint>eu-west-1</LocationConstraint></CreateBucketConfiguration>')),
    { locationConstraint: 'eu-west-1' },
  );
  assert.throws(() => decodeCreateBucketConfiguration(Buffer.from('<CreateBucketConfiguration>')), isMalformed);
});

test('decodeTagging reads Tag elements in order, empty values and empty TagSets; structure errors are MalformedXML', () => {
  const ns = 'xmlns="http://s3.amazonaws.com/doc/2006-03-01/"';
  assert.deepEqual(decodeTagging(Buffer.from(`<Tagging ${ns}><TagSet><Tag><Key>b</Key><Value>2 &amp; 3</Value></Tag><Tag><Key>a</Key><Value/></Tag></TagSet></Tagging>`)), [
    { key: 'b', value: '2 & 3' }, { key: 'a', value: '' },
  ]);
  assert.deepEqual(decodeTagging(Buffer.from('<Tagging><TagSet><Tag><Key>only</Key><Value>v</Value></Tag></TagSet></Tagging>')), [{ key: 'only', value: 'v' }]);
  assert.deepEqual(decodeTagging(Buffer.from('<Tagging><TagSet></TagSet></Tagging>')), []);
  for (const bad of ['<Tagging></Tagging>', '<Tagging><TagSet><Tag><Key>k</Key></Tag></TagSet></Tagging>', '<Tags><TagSet/></Tags>',
    '<Tagging><TagSet><Tag><Key><x/></Key><Value>v</Value></Tag></TagSet></Tagging>', '<Tagging><TagSet>text</TagSet></Tagging>']) {
    assert.throws(() => decodeTagging(Buffer.from(bad)), isMalformed, bad);
  }
});
