/**
 * The built server on 4 temp drives with an AWS SDK client for it: what the benches that time one request kind through
 * a real S3 client (bench:parts, bench:versions) start. `stop` ends the server and removes its drives.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { startSvc } from '../test/helpers/svc-process.js';

export async function startWithSdk(): Promise<{ client: S3Client; stop(): Promise<void> }> {
  const credentials = { accessKey: 'SDKBENCHACCESSKEY001', secretKey: 'sdkbench-secret-key-0123456789abcdefgh' };
  const svc = await startSvc({ drives: 4, built: true, env: { SVC_OBS_LOGGER_LEVEL: 'error' }, credentials });
  const client = new S3Client({
    endpoint: svc.url, region: 'us-east-1', forcePathStyle: true,
    credentials: { accessKeyId: credentials.accessKey, secretAccessKey: credentials.secretKey },
  });
  return {
    client,
    async stop() {
      client.destroy();
      await svc.stop();
      svc.cleanup();
    },
  };
}
