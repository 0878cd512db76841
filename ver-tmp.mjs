import { S3Client, CreateBucketCommand, PutBucketVersioningCommand, PutObjectCommand } from '@aws-sdk/client-s3';
const [port, total, every, size] = process.argv.slice(2).map(Number);
const c = new S3Client({ endpoint: `http://127.0.0.1:${port}`, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'benchkey', secretAccessKey: 'benchsecret123' } });
await c.send(new CreateBucketCommand({ Bucket: 'ver' })).catch(() => {});
await c.send(new PutBucketVersioningCommand({ Bucket: 'ver', VersioningConfiguration: { Status: 'Enabled' } }));
const body = Buffer.alloc(size, 7);
let t = performance.now();
for (let n = 1; n <= total; n++) {
  await c.send(new PutObjectCommand({ Bucket: 'ver', Key: `k${size}`, Body: body }));
  if (n % every === 0) { const now = performance.now(); console.log(`size ${size} versions ${n - every + 1}-${n}: PUT ${((now - t) / every).toFixed(2)} ms`); t = now; }
}
