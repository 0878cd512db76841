/**
 * `POST /svc/peer/bucket/changed` (issue 9): nodes keep each bucket's merged record (versioning, object lock,
 * policy, encryption…) in memory instead of reading it from every drive on every request; a node that changed a
 * bucket's record tells its peers (`{"bucket":"name"}`), which drop their copy and read it again on next use.
 * Authenticated with the node token like every peer route: 403 and nothing dropped without it. The cluster layer
 * does not know the cache: dropping is the caller's callback.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { RpcCredentials } from '../rpc/index.js';
import { PEER_PREFIX } from './peer-info.js';
import { badRequest, setupPeerJson } from './peer-json.js';

/** Path of the notification. */
export const BUCKET_CHANGED_PATH = `${PEER_PREFIX}/bucket/changed`;

/** Options of {@link bucketChangedPlugin}. */
export interface BucketChangedPluginOptions {
  credentials: RpcCredentials;
  /** Drops what this node keeps of `bucket`'s record. */
  forget: (bucket: string) => void;
  now?: () => number;
}

/** The bucket a notification names; throws a 400 error on anything else. */
export function parseBucketChanged(body: unknown): string {
  const bucket = (body !== null && typeof body === 'object' && !Array.isArray(body)) ? (body as { bucket?: unknown }).bucket : undefined;
  if (typeof bucket !== 'string' || bucket === '' || bucket.length > 255) throw badRequest('the body must be {"bucket":"<name>"}');
  return bucket;
}

/** Fastify plugin serving `POST /svc/peer/bucket/changed`. */
export const bucketChangedPlugin: FastifyPluginAsync<BucketChangedPluginOptions> = async (app, opts) => {
  setupPeerJson(app, { credentials: opts.credentials, now: opts.now, what: 'bucket change', bodyLimit: 4096 });
  app.post(BUCKET_CHANGED_PATH, async (request) => {
    const bucket = parseBucketChanged(request.body);
    opts.forget(bucket);
    return { forgotten: bucket };
  });
};

Object.assign(bucketChangedPlugin, { [Symbol.for('plugin-meta')]: { name: 'svc-bucket-changed', fastify: '5.x' } });
