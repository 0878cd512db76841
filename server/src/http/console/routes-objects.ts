/**
 * The object browser's API (issue 6): buckets, objects by prefix with pagination, streamed upload and download,
 * delete, share links and metadata. Each call acts as the signed-in identity: the same S3 action an S3 client
 * would need is checked (https://docs.aws.amazon.com/AmazonS3/latest/userguide/using-with-s3-policy-actions.html),
 * then the ObjectLayer is called in-process. Bodies are streams end to end, never buffered.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { VersioningState } from '../../storage/index.js';
import { arn, requireAllowed } from './actor.js';
import type { ConsoleContext } from './console-context.js';
import { ConsoleError } from './console-error.js';
import { presignGet } from './presign.js';

/** Options of {@link objectRoutes}. */
export interface ObjectRoutesOptions {
  ctx: ConsoleContext;
}

/** Longest share link S3 allows: 7 days (SigV4 presigned URLs, X-Amz-Expires). */
export const MAX_SHARE_SECONDS = 7 * 24 * 3600;

const PREFIX = '/svc/console/api/buckets';

function param(request: FastifyRequest, name: string): string {
  const v = (request.params as Record<string, string | undefined>)[name];
  if (v === undefined || v === '') throw new ConsoleError('InvalidRequest', `The ${name} is missing.`);
  return v;
}

function query(request: FastifyRequest, name: string): string | undefined {
  const v = (request.query as Record<string, unknown>)[name];
  return typeof v === 'string' ? v : undefined;
}

function keyOf(request: FastifyRequest): string {
  const key = query(request, 'key');
  if (key === undefined || key === '') throw new ConsoleError('InvalidRequest', 'The object key is missing (?key=).');
  return key;
}

function bodyField(request: FastifyRequest, name: string): unknown {
  const body = request.body;
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
}

/** A Content-Disposition for a download: the key's last segment, RFC 6266 with the UTF-8 form (RFC 8187). */
function attachment(key: string): string {
  const name = key.split('/').filter((s) => s !== '').pop() ?? 'download';
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/** See the module comment. */
export const objectRoutes: FastifyPluginAsync<ObjectRoutesOptions> = async (app, { ctx }) => {
  const layer = ctx.services.objectLayer;
  const versioningOf = async (bucket: string): Promise<VersioningState | undefined> => {
    const stored = await layer.getBucketConfig(bucket, 'versioning');
    return stored === 'Enabled' ? 'enabled' : stored === 'Suspended' ? 'suspended' : undefined;
  };

  app.get(PREFIX, async (request) => {
    const actor = await ctx.actor(request);
    const all = await layer.listBuckets();
    // Only the buckets this identity may list (MinIO's console does the same), so a narrow policy sees its own.
    const visible = actor.isRoot ? all : all.filter((b) => actor.decide('s3:ListBucket', arn(b.name)) === 'allow');
    if (visible.length === 0 && actor.decide('s3:ListAllMyBuckets', 'arn:aws:s3:::*') !== 'allow') {
      throw new ConsoleError('AccessDenied', `You (${actor.name}) are not allowed to list any bucket.`);
    }
    return { buckets: visible.map((b) => ({ name: b.name, created: b.created.toISOString() })) };
  });

  app.post(PREFIX, async (request) => {
    const actor = await ctx.mutator(request);
    const name = bodyField(request, 'name');
    if (typeof name !== 'string' || name === '') throw new ConsoleError('InvalidRequest', 'The bucket name is missing.');
    requireAllowed(actor, 's3:CreateBucket', arn(name));
    await layer.makeBucket(name);
    return { name };
  });

  app.delete(`${PREFIX}/:bucket`, async (request, reply) => {
    const bucket = param(request, 'bucket');
    requireAllowed(await ctx.mutator(request), 's3:DeleteBucket', arn(bucket));
    await layer.deleteBucket(bucket);
    return reply.code(204).send();
  });

  app.get(`${PREFIX}/:bucket/versioning`, async (request) => {
    const bucket = param(request, 'bucket');
    requireAllowed(await ctx.actor(request), 's3:GetBucketVersioning', arn(bucket));
    await layer.getBucketInfo(bucket);
    return { status: (await versioningOf(bucket)) ?? 'unversioned' };
  });

  app.put(`${PREFIX}/:bucket/versioning`, async (request) => {
    const bucket = param(request, 'bucket');
    requireAllowed(await ctx.mutator(request), 's3:PutBucketVersioning', arn(bucket));
    const enabled = bodyField(request, 'enabled');
    if (typeof enabled !== 'boolean') throw new ConsoleError('InvalidRequest', 'Send { "enabled": true | false }.');
    await layer.getBucketInfo(bucket);
    // Stored as PutBucketVersioning stores it (http/s3 operations/versioning.ts): the status word.
    await layer.putBucketConfig(bucket, 'versioning', enabled ? 'Enabled' : 'Suspended');
    return { status: enabled ? 'enabled' : 'suspended' };
  });

  app.get(`${PREFIX}/:bucket/objects`, async (request) => {
    const bucket = param(request, 'bucket');
    const prefix = query(request, 'prefix') ?? '';
    const limit = Math.min(1000, Math.max(1, Number(query(request, 'limit') ?? '200') || 200));
    requireAllowed(await ctx.actor(request), 's3:ListBucket', arn(bucket), { 's3:prefix': prefix, 's3:delimiter': '/' });
    const token = query(request, 'token');
    let startAfter = '';
    if (token !== undefined && token !== '') {
      startAfter = Buffer.from(token, 'base64url').toString('utf8');
      if (!startAfter.startsWith(prefix)) throw new ConsoleError('InvalidRequest', 'The continuation token belongs to another prefix.');
    }
    const page = await layer.listObjects(bucket, { prefix, delimiter: '/', startAfter, maxKeys: limit });
    return {
      prefixes: page.commonPrefixes,
      objects: page.objects.map((o) => ({ key: o.key, size: o.size, lastModified: o.lastModified.toISOString(), etag: o.etag })),
      nextToken: page.isTruncated && page.nextMarker !== undefined ? Buffer.from(page.nextMarker, 'utf8').toString('base64url') : null,
    };
  });

  app.get(`${PREFIX}/:bucket/object`, async (request) => {
    const bucket = param(request, 'bucket');
    const key = keyOf(request);
    requireAllowed(await ctx.actor(request), 's3:GetObject', arn(bucket, key));
    const info = await layer.getObjectInfo(bucket, key);
    return {
      key: info.key, size: info.size, etag: info.etag, lastModified: info.lastModified.toISOString(),
      contentType: info.system['content-type'] ?? 'application/octet-stream', system: info.system, user: info.user,
      tags: info.tags ?? [], versionId: info.versionId ?? null, checksums: info.checksums, parts: info.partCount ?? null,
    };
  });

  app.get(`${PREFIX}/:bucket/download`, async (request, reply) => {
    const bucket = param(request, 'bucket');
    const key = keyOf(request);
    requireAllowed(await ctx.actor(request), 's3:GetObject', arn(bucket, key));
    const object = await layer.openObject(bucket, key);
    return reply.header('content-type', 'application/octet-stream').header('content-length', String(object.info.size))
      .header('content-disposition', attachment(key)).header('etag', `"${object.info.etag}"`)
      .send(object.read());
  });

  app.delete(`${PREFIX}/:bucket/object`, async (request, reply) => {
    const bucket = param(request, 'bucket');
    const key = keyOf(request);
    requireAllowed(await ctx.mutator(request), 's3:DeleteObject', arn(bucket, key));
    const versioning = await versioningOf(bucket);
    await layer.deleteObject(bucket, key, versioning !== undefined ? { versioning } : {});
    return reply.code(204).send();
  });

  app.post(`${PREFIX}/:bucket/share`, async (request) => {
    const bucket = param(request, 'bucket');
    const actor = await ctx.mutator(request);
    const key = bodyField(request, 'key');
    const expires = bodyField(request, 'expiresSeconds');
    if (typeof key !== 'string' || key === '') throw new ConsoleError('InvalidRequest', 'The object key is missing.');
    if (typeof expires !== 'number' || !Number.isInteger(expires) || expires < 1 || expires > MAX_SHARE_SECONDS) {
      throw new ConsoleError('InvalidRequest', `The expiry must be 1 to ${MAX_SHARE_SECONDS} seconds (7 days).`);
    }
    requireAllowed(actor, 's3:GetObject', arn(bucket, key));
    await layer.getObjectInfo(bucket, key);
    // A key session signs with its own key, so the link dies with the account; an OIDC session has no S3 key, so
    // the link is signed with the root key, for this one object, after the session's own GetObject was checked.
    const secret = actor.session.kind === 'keys' ? await ctx.services.iam.lookupSecret(actor.session.sub) : undefined;
    const credentials = secret !== undefined ? { accessKey: actor.session.sub, secretKey: secret } : ctx.services.root;
    const now = ctx.now();
    const url = await presignGet({ endpoint: ctx.services.s3Url(), region: ctx.services.region, credentials, bucket, key, expiresSeconds: expires, now });
    return { url, expiresAt: new Date(now.getTime() + expires * 1000).toISOString() };
  });

  // Uploads: the body is the object, piped into putObject as it arrives (no parser, no buffering).
  await app.register(async (raw) => {
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    raw.put(`${PREFIX}/:bucket/upload`, async (request) => {
      const bucket = param(request, 'bucket');
      const key = keyOf(request);
      requireAllowed(await ctx.mutator(request), 's3:PutObject', arn(bucket, key));
      const length = request.headers['content-length'];
      const size = length !== undefined && /^\d+$/.test(length) ? Number(length) : -1;
      const type = request.headers['content-type'];
      const versioning = await versioningOf(bucket);
      const info = await layer.putObject(bucket, key, request.raw, {
        size,
        metadata: { system: type !== undefined && type !== '' ? { 'content-type': type } : {}, user: {} },
        ...(versioning !== undefined ? { versioning } : {}),
      });
      return { key: info.key, size: info.size, etag: info.etag };
    });
  });
};
