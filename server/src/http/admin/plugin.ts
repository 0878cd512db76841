/**
 * The admin API on the S3 port (docs/admin-api.md, issue 5) as an encapsulated fastify plugin: one route under
 * `/svc/admin/v3/`, registered before the S3 catch-all so it wins. Every call is SigV4-signed exactly like an S3
 * request (same verifier, signed body checked against x-amz-content-sha256), then checked against the admin action
 * it needs (root always allowed), then answered in JSON. Every failure is a JSON error with a code.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { decodePayload, verifyRequest } from '../../auth/index.js';
import type { LookupSecret } from '../../auth/index.js';
import type { ServerReport } from '../../cluster/index.js';
import type { IamStore, IdentityAuthority } from '../../iam/index.js';
import type { Storage } from '../../storage/index.js';
import { newRequestId, readBodyCapped } from '../shared/index.js';
import { AdminError, toAdminError } from './admin-error.js';
import { runIamCall } from './iam-calls.js';
import { assembleInfoReport, countContents } from './info.js';
import { ADMIN_PREFIX, BODY_CALLS, requiredActions, resolveAdminCall } from './router.js';
import type { AdminCall } from './router.js';

/** Options of {@link adminPlugin}; services come from the composition root. */
export interface AdminPluginOptions {
  lookupSecret: LookupSecret;
  /** The IAM store: permission decisions and the IAM calls. */
  iam: IamStore & IdentityAuthority;
  /** The open storage; undefined while a cluster node is still starting (calls then answer 503). */
  storage: () => Storage | undefined;
  /** Every server of the deployment with its drives (this node's own report in path mode). */
  servers: () => Promise<ServerReport[]>;
  region: string;
  version: string;
  now?: () => Date;
}

/** Largest accepted request body (a policy document is at most 20 KiB). */
export const MAX_ADMIN_BODY = 256 * 1024;

const METHODS = ['GET', 'HEAD', 'PUT', 'POST', 'DELETE', 'PATCH', 'OPTIONS'] as const;

/** Resource admin actions are evaluated on: identity policies grant admin actions without naming a bucket. */
const ADMIN_RESOURCE = 'arn:aws:s3:::*';

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  reply.code(status).header('cache-control', 'no-store');
  if (status === 204 || body === undefined) return reply.send();
  return reply.header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(body));
}

function sendError(request: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  const { error, internal } = toAdminError(err);
  if (internal) request.log.error({ err }, 'admin request failed');
  if (reply.sent) return reply;
  // A body we did not read must not be parsed as the next request on a kept-alive connection.
  if (!request.raw.complete) reply.header('connection', 'close');
  const requestId = String(reply.getHeader('x-amz-request-id') ?? '');
  return sendJson(reply, error.status, { code: error.code, message: error.message, requestId });
}

function parseJson(raw: Buffer, call: AdminCall): unknown {
  // A policy document is checked by the policy parser, which names what is wrong with it.
  if (call.op === 'PutPolicy') return undefined;
  const t = raw.toString('utf8');
  if (t.trim() === '') return undefined;
  try {
    return JSON.parse(t) as unknown;
  } catch {
    throw new AdminError('InvalidRequest', 'The request body is not valid JSON.');
  }
}

/** See the module comment. */
export const adminPlugin: FastifyPluginAsync<AdminPluginOptions> = async (app, opts) => {
  const now = opts.now ?? (() => new Date());
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
  app.setErrorHandler((err, request, reply) => sendError(request, reply, err));

  const ready = (): Storage => {
    const storage = opts.storage();
    if (storage === undefined) throw new AdminError('ServiceUnavailable', 'This node is starting: its storage is not open yet. Retry shortly.');
    return storage;
  };

  const authorize = (request: FastifyRequest, accessKey: string, actions: readonly string[]): void => {
    if (opts.iam.isRoot(accessKey)) return;
    const headers = request.raw.headers;
    const context = {
      'aws:sourceip': request.ip,
      'aws:securetransport': String(request.protocol === 'https'),
      ...(first(headers['user-agent']) !== undefined ? { 'aws:useragent': first(headers['user-agent'])! } : {}),
      ...(first(headers.referer) !== undefined ? { 'aws:referer': first(headers.referer)! } : {}),
    };
    for (const action of actions) {
      if (opts.iam.decide(accessKey, { action, resource: ADMIN_RESOURCE, context }) !== 'allow') {
        throw new AdminError('AccessDenied', `${action} is not allowed for ${accessKey}`);
      }
    }
  };

  const run = async (call: AdminCall, body: unknown, raw: Buffer, accessKey: string): Promise<{ status: number; body?: unknown }> => {
    if (call.op === 'ServerInfo') {
      const storage = ready();
      const [servers, counts] = await Promise.all([opts.servers(), countContents(storage)]);
      return {
        status: 200,
        body: assembleInfoReport({
          serverVersion: opts.version, deploymentId: storage.deploymentId, region: opts.region, pools: storage.poolLayouts(),
          servers, buckets: counts.buckets, objects: counts.objects,
        }),
      };
    }
    if (call.op === 'HealStatus') return { status: 200, body: ready().healStatus() };
    return runIamCall(opts.iam, call, body, raw, { accessKey });
  };

  const handle = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    reply.header('x-amz-request-id', newRequestId());
    try {
      const url = request.raw.url ?? '/';
      const q = url.indexOf('?');
      const rawPath = q === -1 ? url : url.slice(0, q);
      const rawQuery = q === -1 ? '' : url.slice(q + 1);
      const headers = request.raw.headers;
      const auth = await verifyRequest({ method: request.method, rawPath, rawQuery, headers, rawHeaders: request.raw.rawHeaders }, opts.lookupSecret, { now: now() });
      if (auth.anonymous) throw new AdminError('AccessDenied', 'Admin API requests must be signed (AWS Signature Version 4).');
      const query = Object.fromEntries(new URLSearchParams(rawQuery));
      const call = resolveAdminCall(request.method, rawPath.slice(ADMIN_PREFIX.length + 1), query);
      if (call === undefined) throw new AdminError('NotFound', `No admin call ${request.method} ${rawPath}.`);
      // The body is read through the verifier, so a signed payload hash is checked before anything is used.
      const raw = BODY_CALLS.has(call.op)
        ? await readBodyCapped(decodePayload(auth, request.raw, headers).stream, MAX_ADMIN_BODY)
        : Buffer.alloc(0);
      const body = parseJson(raw, call);
      authorize(request, auth.accessKey, requiredActions(call, body));
      const answer = await run(call, body, raw, auth.accessKey);
      return sendJson(reply, answer.status, answer.body);
    } catch (err) {
      return sendError(request, reply, err);
    }
  };

  app.route({ method: [...METHODS], url: `${ADMIN_PREFIX}/*`, handler: handle });
  app.route({ method: [...METHODS], url: ADMIN_PREFIX, handler: handle });
};

Object.assign(adminPlugin, { [Symbol.for('plugin-meta')]: { name: 'svc-admin', fastify: '5.x' } });
