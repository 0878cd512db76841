/**
 * A real S3 endpoint for cross-layer tests: fastify + s3Plugin + the real erasure-coded storage engine on
 * temp drive directories, listening on 127.0.0.1:0, plus an @aws-sdk/client-s3 client configured for it.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { S3Client } from '@aws-sdk/client-s3';
import { installS3ClientErrorHandler, s3FrameworkErrors, s3Plugin } from '../../../src/http/s3/index.js';
import { openStorage, type ObjectLayer } from '../../../src/storage/index.js';
import type { LocalKms } from '../../../src/crypto/index.js';

/**
 * Credentials the harness accepts, generated per test run (no secret in git). The secret keeps '/', '+' and '='
 * on purpose: signers must not trip over them.
 */
export const ACCESS_KEY = `AKIA${randomBytes(8).toString('hex').toUpperCase()}`;
export const SECRET_KEY = `${randomBytes(12).toString('base64url')}/key+with/special=${randomBytes(6).toString('hex')}`;
export const REGION = 'us-east-1';

/** A running server and what tests need to talk to it and inspect its drives. */
export interface S3Harness {
  app: FastifyInstance;
  endpoint: string;
  port: number;
  drives: string[];
  root: string;
  client: S3Client;
  /** The storage engine behind the server (undecorated), for tests that drive background services directly. */
  layer: ObjectLayer;
  /** A client with a wrong secret (signatures never match). */
  badClient: S3Client;
  close(): Promise<void>;
}

/** A client for `endpoint` with the given secret (path-style, SDK default checksum behaviour). */
export function makeClient(endpoint: string, secretAccessKey = SECRET_KEY, accessKeyId = ACCESS_KEY): S3Client {
  return new S3Client({
    endpoint,
    region: REGION,
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
    maxAttempts: 1,
  });
}

/** Test hooks of startS3. */
export interface HarnessOptions {
  now?: () => Date;
  /** Decorates the engine (fault injection). */
  wrapLayer?: (layer: ObjectLayer) => ObjectLayer;
  /** Registers sibling plugins before s3Plugin (e.g. health probes), as the composition root does. */
  before?: (app: FastifyInstance) => Promise<void>;
  /** Virtual-host domains (s3Plugin's `domains`, what SVC_DOMAIN configures). */
  domains?: string[];
  /** The KMS for SSE-S3 (what SVC_KMS_SECRET_KEY configures). */
  kms?: LocalKms;
}

/** Starts a server on 4 temp drives (one erasure set, parity 2). */
export async function startS3(opts: HarnessOptions = {}): Promise<S3Harness> {
  const root = await mkdtemp(join(tmpdir(), 'svc-s3-test-'));
  // Drives live one level down so tests can check nothing is ever written next to them.
  const drives = [1, 2, 3, 4].map((i) => join(root, 'drives', `drive${i}`));
  for (const d of drives) await mkdir(d, { recursive: true });
  const storage = await openStorage({ sets: [drives], parity: 2 });
  const app = Fastify({
    logger: false,
    routerOptions: { ignoreDuplicateSlashes: false, ignoreTrailingSlash: false },
    frameworkErrors: s3FrameworkErrors,
  });
  if (opts.before !== undefined) await opts.before(app);
  await app.register(s3Plugin, {
    objectLayer: opts.wrapLayer !== undefined ? opts.wrapLayer(storage) : storage,
    lookupSecret: async (ak) => (ak === ACCESS_KEY ? SECRET_KEY : undefined),
    region: REGION,
    ...(opts.now !== undefined ? { now: opts.now } : {}),
    ...(opts.domains !== undefined ? { domains: opts.domains } : {}),
    ...(opts.kms !== undefined ? { kms: opts.kms } : {}),
  });
  installS3ClientErrorHandler(app.server);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as AddressInfo).port;
  const endpoint = `http://127.0.0.1:${port}`;
  const client = makeClient(endpoint);
  const badClient = makeClient(endpoint, 'definitely-not-the-secret');
  return {
    app, endpoint, port, drives, root, client, badClient, layer: storage,
    async close() {
      client.destroy();
      badClient.destroy();
      await app.close();
      await storage.close();
      await rm(root, { recursive: true, force: true, maxRetries: 5 });
    },
  };
}
