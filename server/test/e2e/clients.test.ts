/**
 * Must show 1 (issue 2): Debian's awscli, s3cmd, rclone and python3-boto3 against a started server —
 * make-bucket, upload and download of a 1 KiB and a 40 MiB file (multipart for every client), list, remove,
 * remove-bucket, byte-exact by sha256.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSvc, type SvcProcess } from '../helpers/svc-process.js';
import { runOk } from '../helpers/run.js';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { s3Client } from '../helpers/s3-client.js';
import { sha256File, writeRandomFile } from '../helpers/files.js';

let svc: SvcProcess;
let work: string;
const files: Record<'small' | 'large', { path: string; sha: string }> = {} as never;

before(async () => {
  svc = await startSvc({ drives: 4 });
  work = mkdtempSync(join(tmpdir(), 'svc-clients-'));
  files.small = { path: join(work, 'small.bin'), sha: '' };
  files.large = { path: join(work, 'large.bin'), sha: '' };
  files.small.sha = await writeRandomFile(files.small.path, 1024);
  files.large.sha = await writeRandomFile(files.large.path, 40 * 1024 * 1024);
});

after(async () => {
  await svc?.stop();
  svc?.cleanup();
  if (work) rmSync(work, { recursive: true, force: true, maxRetries: 5 });
});

/** The object's ETag says it was uploaded in `parts` parts (multipart ETag `<md5-of-md5s>-N`). */
async function assertMultipart(bucket: string, key: string, parts: number) {
  const s3 = s3Client(svc.url, svc.accessKey, svc.secretKey);
  try {
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    assert.match(head.ETag ?? '', new RegExp(`-${parts}"$`), `${bucket}/${key} was uploaded in ${parts} parts`);
  } finally {
    s3.destroy();
  }
}

/** Checks a downloaded copy against the original, byte for byte (sha256). */
async function assertSame(downloaded: string, which: 'small' | 'large') {
  assert.equal(await sha256File(downloaded), files[which].sha, `${which} file differs after the round trip`);
}

describe('awscli (Debian)', () => {
  test('mb, cp up/down 1 KiB and 40 MiB (multipart), ls, rm, rb', async () => {
    const cfg = join(work, 'aws-config');
    writeFileSync(cfg, '[default]\nregion = us-east-1\ns3 =\n  addressing_style = path\n  multipart_threshold = 8MB\n  multipart_chunksize = 8MB\n');
    const env = { ...process.env, AWS_ACCESS_KEY_ID: svc.accessKey, AWS_SECRET_ACCESS_KEY: svc.secretKey,
      AWS_CONFIG_FILE: cfg, AWS_SHARED_CREDENTIALS_FILE: join(work, 'none'), AWS_EC2_METADATA_DISABLED: 'true', AWS_PAGER: '' };
    const aws = (...args: string[]) => runOk('/usr/bin/aws', ['--endpoint-url', svc.url, ...args], { env });
    await aws('s3', 'mb', 's3://aws-bucket');
    await aws('s3', 'cp', files.small.path, 's3://aws-bucket/dir/small.bin');
    await aws('s3', 'cp', files.large.path, 's3://aws-bucket/dir/large.bin');
    const ls = await aws('s3', 'ls', 's3://aws-bucket/dir/');
    assert.match(ls.stdout, /1024 small\.bin/);
    assert.match(ls.stdout, /41943040 large\.bin/);
    const head = JSON.parse((await aws('s3api', 'head-object', '--bucket', 'aws-bucket', '--key', 'dir/large.bin')).stdout);
    assert.match(head.ETag, /-5"$/, 'the 40 MiB upload was multipart (5 parts of 8 MiB)');
    await aws('s3', 'cp', 's3://aws-bucket/dir/small.bin', join(work, 'aws-small.out'));
    await aws('s3', 'cp', 's3://aws-bucket/dir/large.bin', join(work, 'aws-large.out'));
    await assertSame(join(work, 'aws-small.out'), 'small');
    await assertSame(join(work, 'aws-large.out'), 'large');
    await aws('s3', 'rm', 's3://aws-bucket/dir/small.bin');
    await aws('s3', 'rm', 's3://aws-bucket/dir/large.bin');
    await aws('s3', 'rb', 's3://aws-bucket');
    const buckets = await aws('s3', 'ls');
    assert.doesNotMatch(buckets.stdout, /aws-bucket/);
  });
});

describe('s3cmd (Debian)', () => {
  test('mb, put/get 1 KiB and 40 MiB (multipart), ls, del, rb', async () => {
    const host = new URL(svc.url).host;
    const cfg = join(work, 's3cfg');
    writeFileSync(cfg, [
      '[default]', `access_key = ${svc.accessKey}`, `secret_key = ${svc.secretKey}`, `host_base = ${host}`,
      `host_bucket = ${host}`, 'use_https = False', 'signature_v2 = False', 'bucket_location = us-east-1',
      'multipart_chunk_size_mb = 15', 'check_ssl_certificate = False', '',
    ].join('\n'), { mode: 0o600 });
    const s3cmd = (...args: string[]) => runOk('/usr/bin/s3cmd', ['-c', cfg, ...args]);
    await s3cmd('mb', 's3://s3cmd-bucket');
    await s3cmd('put', files.small.path, 's3://s3cmd-bucket/small.bin');
    await s3cmd('put', files.large.path, 's3://s3cmd-bucket/large.bin');
    await assertMultipart('s3cmd-bucket', 'large.bin', 3);
    const ls = await s3cmd('ls', 's3://s3cmd-bucket/');
    assert.match(ls.stdout, /s3:\/\/s3cmd-bucket\/small\.bin/);
    assert.match(ls.stdout, /41943040\s+s3:\/\/s3cmd-bucket\/large\.bin/);
    await s3cmd('get', 's3://s3cmd-bucket/small.bin', join(work, 's3cmd-small.out'));
    await s3cmd('get', 's3://s3cmd-bucket/large.bin', join(work, 's3cmd-large.out'));
    await assertSame(join(work, 's3cmd-small.out'), 'small');
    await assertSame(join(work, 's3cmd-large.out'), 'large');
    await s3cmd('del', 's3://s3cmd-bucket/small.bin', 's3://s3cmd-bucket/large.bin');
    await s3cmd('rb', 's3://s3cmd-bucket');
    assert.doesNotMatch((await s3cmd('ls')).stdout, /s3cmd-bucket/);
  });
});

describe('rclone (Debian)', () => {
  test('mkdir, copyto up/down 1 KiB and 40 MiB (multipart), lsl, deletefile, rmdir', async () => {
    // AWS_CA_BUNDLE (set on some machines) makes rclone's SDK fail on a plain-HTTP endpoint; it has no use here.
    const { AWS_CA_BUNDLE: _unused, ...base } = process.env;
    const env = {
      ...base, RCLONE_CONFIG: join(work, 'rclone.conf'),
      RCLONE_CONFIG_SVC_TYPE: 's3', RCLONE_CONFIG_SVC_PROVIDER: 'Minio', RCLONE_CONFIG_SVC_ENDPOINT: svc.url,
      RCLONE_CONFIG_SVC_ACCESS_KEY_ID: svc.accessKey, RCLONE_CONFIG_SVC_SECRET_ACCESS_KEY: svc.secretKey,
      RCLONE_CONFIG_SVC_REGION: 'us-east-1', RCLONE_CONFIG_SVC_FORCE_PATH_STYLE: 'true',
    };
    const rclone = (...args: string[]) => runOk('/usr/bin/rclone', ['--s3-upload-cutoff', '8M', '--s3-chunk-size', '8M', ...args], { env });
    await rclone('mkdir', 'svc:rclone-bucket');
    await rclone('copyto', files.small.path, 'svc:rclone-bucket/small.bin');
    await rclone('copyto', files.large.path, 'svc:rclone-bucket/large.bin');
    await assertMultipart('rclone-bucket', 'large.bin', 5);
    const ls = await rclone('lsl', 'svc:rclone-bucket');
    assert.match(ls.stdout, /1024 .* small\.bin/);
    assert.match(ls.stdout, /41943040 .* large\.bin/);
    await rclone('copyto', 'svc:rclone-bucket/small.bin', join(work, 'rclone-small.out'));
    await rclone('copyto', 'svc:rclone-bucket/large.bin', join(work, 'rclone-large.out'));
    await assertSame(join(work, 'rclone-small.out'), 'small');
    await assertSame(join(work, 'rclone-large.out'), 'large');
    await rclone('deletefile', 'svc:rclone-bucket/small.bin');
    await rclone('deletefile', 'svc:rclone-bucket/large.bin');
    await rclone('rmdir', 'svc:rclone-bucket');
    assert.doesNotMatch((await rclone('lsd', 'svc:')).stdout, /rclone-bucket/);
  });
});

describe('python3-boto3 (Debian)', () => {
  test('create_bucket, upload/download 1 KiB and 40 MiB (multipart), list, delete, delete_bucket', async () => {
    const script = `
import sys, boto3
from boto3.s3.transfer import TransferConfig
from botocore.config import Config
url, ak, sk, small, large, out = sys.argv[1:7]
s3 = boto3.client('s3', endpoint_url=url, aws_access_key_id=ak, aws_secret_access_key=sk, region_name='us-east-1',
                  config=Config(s3={'addressing_style': 'path'}, signature_version='s3v4'))
tc = TransferConfig(multipart_threshold=8*1024*1024, multipart_chunksize=8*1024*1024)
s3.create_bucket(Bucket='boto-bucket')
s3.upload_file(small, 'boto-bucket', 'small.bin', Config=tc)
s3.upload_file(large, 'boto-bucket', 'large.bin', Config=tc)
keys = {o['Key']: o['Size'] for o in s3.list_objects_v2(Bucket='boto-bucket')['Contents']}
assert keys == {'small.bin': 1024, 'large.bin': 41943040}, keys
etag = s3.head_object(Bucket='boto-bucket', Key='large.bin')['ETag']
assert etag.endswith('-5"'), etag
s3.download_file('boto-bucket', 'small.bin', out + '/boto-small.out', Config=tc)
s3.download_file('boto-bucket', 'large.bin', out + '/boto-large.out', Config=tc)
s3.delete_object(Bucket='boto-bucket', Key='small.bin')
s3.delete_object(Bucket='boto-bucket', Key='large.bin')
s3.delete_bucket(Bucket='boto-bucket')
names = [b['Name'] for b in s3.list_buckets()['Buckets']]
assert 'boto-bucket' not in names, names
print('boto3 ok', boto3.__version__)
`;
    const path = join(work, 'boto.py');
    writeFileSync(path, script);
    const r = await runOk('/usr/bin/python3', [path, svc.url, svc.accessKey, svc.secretKey, files.small.path, files.large.path, work]);
    assert.match(r.stdout, /boto3 ok 1\.26/);
    await assertSame(join(work, 'boto-small.out'), 'small');
    await assertSame(join(work, 'boto-large.out'), 'large');
  });
});
