/** An AWS SDK v3 client for a test server (path style, keep-alive). */
import { Agent } from 'node:http';
import { S3Client } from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';

/** Creates a client for `url` with the given credentials. */
export function s3Client(url: string, accessKey: string, secretKey: string): S3Client {
  return new S3Client({
    endpoint: url, region: 'us-east-1', forcePathStyle: true,
    credentials: { accessKeyId: accessKey, secretAccessKey: secretKey },
    requestHandler: new NodeHttpHandler({ httpAgent: new Agent({ keepAlive: true, maxSockets: 16 }), requestTimeout: 120_000 }),
    maxAttempts: 1,
  });
}

/** Reads a GetObject body fully. */
export async function bodyBytes(body: unknown): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of body as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

/** Polls `probe` every 250 ms until it returns true or `ms` passes; returns the last result. */
export async function eventually(probe: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (await probe().catch(() => false)) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 250));
  }
}
