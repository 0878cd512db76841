/** The AWS SDK v3 S3 client pointed at the proxy's published HTTPS port, trusting the deployment's CA. */
import { Agent } from 'node:https';
import { S3Client } from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { loopbackLookup } from './net.js';

/** Where and as whom the client talks. */
export interface S3Target {
  readonly s3Host: string;
  readonly httpsPort: number;
  readonly ca: string;
  readonly accessKey: string;
  readonly secretKey: string;
}

/** A path-style client for `https://<s3Host>:<port>` whose connections go to 127.0.0.1 (SNI and Host stay the name). */
export function s3Client(t: S3Target, opts: { maxAttempts?: number } = {}): S3Client {
  const httpsAgent = new Agent({ ca: t.ca, lookup: loopbackLookup, keepAlive: true });
  return new S3Client({
    endpoint: `https://${t.s3Host}:${t.httpsPort}`,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: t.accessKey, secretAccessKey: t.secretKey },
    requestHandler: new NodeHttpHandler({ httpsAgent }),
    maxAttempts: opts.maxAttempts ?? 1,
  });
}
