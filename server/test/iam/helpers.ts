/**
 * A real API listener with the IAM store, as main.ts composes it: erasure-coded storage on temp drives, the IAM
 * store over its system bucket, buildApiApp (health probes + S3) on 127.0.0.1:0. Users are created through the
 * store's API directly (the admin API is issue 5).
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import { S3Client } from '@aws-sdk/client-s3';
import { buildApiApp } from '../../src/app.js';
import { IamStore, objectLayerPersistence } from '../../src/iam/index.js';
import { openStorage, type Storage } from '../../src/storage/index.js';
import { ACCESS_KEY, REGION, SECRET_KEY } from '../s3/helpers/harness.js';

/** A running server with its IAM store. */
export interface IamServer {
  app: FastifyInstance;
  endpoint: string;
  port: number;
  storage: Storage;
  iam: IamStore;
  /** A client signing with `accessKey`/`secretKey` (root's when omitted). */
  client(accessKey?: string, secretKey?: string): S3Client;
  close(): Promise<void>;
}

/** Starts the server; the root credentials are the S3 harness's (so its raw signing helpers sign as root). */
export async function startIamServer(): Promise<IamServer> {
  const root = await mkdtemp(join(tmpdir(), 'svc-iam-test-'));
  const drives = [1, 2, 3, 4].map((i) => join(root, `drive${i}`));
  for (const d of drives) await mkdir(d, { recursive: true });
  const storage = await openStorage({ sets: [drives], parity: 2, driveCheckIntervalMs: 3_600_000 });
  const iam = new IamStore({ root: { accessKey: ACCESS_KEY, secretKey: SECRET_KEY }, persistence: objectLayerPersistence(storage) });
  await iam.start();
  const app = await buildApiApp({
    logger: pino({ level: 'silent' }), objectLayer: storage, lookupSecret: (ak) => iam.lookupSecret(ak), identities: iam,
    region: REGION, domains: [], healthEnabled: true,
    healthSources: {
      storage: () => storage.health(), iamReady: () => iam.ready(), lockReady: async () => true,
      version: 'test', startedAt: new Date(), maintenanceLosesQuorum: () => true,
    },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as AddressInfo).port;
  const endpoint = `http://127.0.0.1:${port}`;
  const clients: S3Client[] = [];
  return {
    app, endpoint, port, storage, iam,
    client(accessKeyId = ACCESS_KEY, secretAccessKey = SECRET_KEY) {
      const c = new S3Client({ endpoint, region: REGION, forcePathStyle: true, credentials: { accessKeyId, secretAccessKey }, maxAttempts: 1 });
      clients.push(c);
      return c;
    },
    async close() {
      for (const c of clients) c.destroy();
      iam.close();
      await app.close();
      await storage.close();
      await rm(root, { recursive: true, force: true, maxRetries: 5 });
    },
  };
}
