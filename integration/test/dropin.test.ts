/**
 * Scenario 5 of issue 7: the svc image is a drop-in for tools that expect MinIO's image (REFERENCE.md §5).
 *
 * The upstream `@testcontainers/minio` module itself is not used: it has no release for testcontainers 12.0.x, the
 * line pinned here as the newest that runs on Node 20 (DOCKER.md §5). Its releases are 11.x (for testcontainers 11)
 * and 12.1.0, which depends on testcontainers ^12.1.0 and so on Node >= 22.22. `MinioLikeContainer` below
 * reproduces the module's usage instead — exposed ports
 * 9000 and 9001, command `server --console-address :9001 /data`, MINIO_ROOT_USER / MINIO_ROOT_PASSWORD (default
 * minioadmin / minioadmin), wait strategy `Wait.forHttp('/minio/health/live', 9000)`, connection URL
 * `http://<host>:<mapped 9000>` — with our image in place of `minio/minio`, and the client calls of its own test
 * (make bucket, bucket exists, put, stat) are made with the AWS SDK and those credentials.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { CreateBucketCommand, HeadBucketCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Wait } from 'testcontainers';
import type { StartedTestContainer } from 'testcontainers';
import { LoopbackContainer, docker, requireDocker, serverImage, wire } from './helpers/index.js';

const MINIO_PORT = 9000;
const MINIO_UI_PORT = 9001;

/** The upstream MinioContainer's configuration, on the loopback-only container of the harness. */
class MinioLikeContainer extends LoopbackContainer {
  private username = 'minioadmin';
  private password = 'minioadmin';

  constructor(image: string) {
    super(image);
    this.withExposedPorts(MINIO_PORT, MINIO_UI_PORT);
    this.withWaitStrategy(Wait.forAll([Wait.forHttp('/minio/health/live', MINIO_PORT)]));
    this.withCommand(['server', '--console-address', `:${MINIO_UI_PORT}`, '/data']);
  }

  withUsername(username: string): this {
    this.username = username;
    return this;
  }

  withPassword(password: string): this {
    this.password = password;
    return this;
  }

  override async start(): Promise<StartedTestContainer> {
    this.withEnvironment({ MINIO_ROOT_USER: this.username, MINIO_ROOT_PASSWORD: this.password });
    return super.start();
  }
}

let container: StartedTestContainer;

before(async () => {
  requireDocker();
  container = await new MinioLikeContainer(await serverImage()).start();
});

after(async () => {
  await container?.stop();
});

const connectionUrl = (): string => `http://${container.getHost()}:${container.getMappedPort(MINIO_PORT)}`;

function client(): S3Client {
  return new S3Client({
    endpoint: connectionUrl(),
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'minioadmin', secretAccessKey: 'minioadmin' },
    maxAttempts: 1,
  });
}

test('the module\'s wait strategy passed: /minio/health/live answers 200 on the S3 port, published on loopback only', async () => {
  const r = await wire({ port: container.getMappedPort(MINIO_PORT), host: container.getHost(), path: '/minio/health/live' }, false);
  assert.equal(r.status, 200);
  const bindings = docker(['port', container.getId()]).trim().split('\n').sort();
  assert.deepEqual(bindings.map((b) => b.replace(/:\d+$/, '')), ['9000/tcp -> 127.0.0.1', '9001/tcp -> 127.0.0.1']);
});

test('with the default credentials: make bucket, bucket exists, put, stat (AWS SDK)', async () => {
  const s3 = client();
  try {
    await s3.send(new CreateBucketCommand({ Bucket: 'test-bucket' }));
    const exists = await s3.send(new HeadBucketCommand({ Bucket: 'test-bucket' }));
    assert.equal(exists.$metadata.httpStatusCode, 200);
    await assert.rejects(s3.send(new HeadBucketCommand({ Bucket: 'no-such-bucket' })), { name: 'NotFound' });
    const body = randomBytes(10_000);
    const put = await s3.send(new PutObjectCommand({ Bucket: 'test-bucket', Key: 'minio-test-data.txt', Body: body, ContentType: 'text/plain' }));
    const stat = await s3.send(new HeadObjectCommand({ Bucket: 'test-bucket', Key: 'minio-test-data.txt' }));
    assert.equal(stat.ContentLength, body.length);
    assert.equal(stat.ContentType, 'text/plain');
    assert.equal(stat.ETag, put.ETag);
  } finally {
    s3.destroy();
  }
});

test('other credentials are refused (the root user really is MINIO_ROOT_USER / MINIO_ROOT_PASSWORD)', async () => {
  const s3 = new S3Client({
    endpoint: connectionUrl(), region: 'us-east-1', forcePathStyle: true, maxAttempts: 1,
    credentials: { accessKeyId: 'minioadmin', secretAccessKey: 'not-the-password' },
  });
  try {
    await assert.rejects(s3.send(new CreateBucketCommand({ Bucket: 'refused' })), { name: 'SignatureDoesNotMatch' });
  } finally {
    s3.destroy();
  }
});

test('the console port answers /svc/console/health, and `/` redirects to /svc/console/', async () => {
  const port = container.getMappedPort(MINIO_UI_PORT);
  const health = await wire({ port, host: container.getHost(), path: '/svc/console/health' }, false);
  assert.equal(health.status, 200);
  const root = await wire({ port, host: container.getHost(), path: '/' }, false);
  assert.equal(root.status, 302);
  assert.equal(root.headers.location, '/svc/console/');
});
