import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { newHostId, newRequestId } from '../shared/index.js';
import { verifyRequest, type AnonymousRequest, type LookupSecret } from '../../auth/index.js';
import type { IdentityAuthority } from '../../iam/index.js';
import type { ObjectLayer } from '../../storage/index.js';
import type { LocalKms } from '../../crypto/index.js';
import { resolveOperation } from './router.js';
import { normalizeDomains, pathStylePath, virtualHostBucket } from './virtual-host.js';
import { HOST_ID_HEADER, REQUEST_ID_HEADER, sendS3Error } from './reply-error.js';
import { dispatch } from './dispatch.js';
import { SERVER_NAME } from './server-name.js';
import { ANONYMOUS_OWNER, type S3Context } from './context.js';
import { applyActualCors } from './operations/cors.js';
import { authorizeAnonymous } from './authorize.js';
import { authorizeSigned } from './authorize-identity.js';

/** Options of s3Plugin; services are injected by the composition root (STYLE.md convention 6). */
export interface S3PluginOptions {
  objectLayer: ObjectLayer;
  lookupSecret: LookupSecret;
  /**
   * Decides signed requests of users and service accounts by their identity policies (the IAM store). Without
   * it every signed request is treated as root's, so `lookupSecret` must then know the root credentials only.
   */
  identities?: IdentityAuthority;
  /** Region reported by GetBucketLocation / HeadBucket and accepted as LocationConstraint. */
  region: string;
  /** Clock for signature time checks; defaults to the system clock. */
  now?: () => Date;
  /**
   * Domains for virtual-hosted-style requests (SVC_DOMAIN, comma-separated, split by the caller): a Host of
   * `bucket.<domain>` addresses `bucket`. Path style always works; empty or absent means path style only.
   */
  domains?: readonly string[];
  /** The KMS for SSE-S3 (SVC_KMS_SECRET_KEY); without it SSE-S3 requests and bucket default encryption are refused. */
  kms?: LocalKms;
  /**
   * Accept SSE-C over plain HTTP from any peer (SVC_SSE_C_ALLOW_HTTP). By default SSE-C needs HTTPS or a loopback
   * peer, as AWS needs HTTPS.
   */
  allowSseCOverHttp?: boolean;
}

/** Methods the S3 API uses; anything else never reaches a handler. */
const METHODS = ['GET', 'HEAD', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'PATCH'] as const;

/** The identity of a CORS preflight: never authenticated, and it has no body. */
const PREFLIGHT_AUTH: AnonymousRequest = Object.freeze({ anonymous: true as const, payload: 'unsigned' as const });

function firstHeader(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function splitUrl(url: string): { rawPath: string; rawQuery: string } {
  const q = url.indexOf('?');
  return q === -1 ? { rawPath: url, rawQuery: '' } : { rawPath: url.slice(0, q), rawQuery: url.slice(q + 1) };
}

/** Query parameters, first value wins; `+` means space as in form encoding (what S3 accepts). */
export function parseQuery(rawQuery: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(rawQuery)) if (!Object.prototype.hasOwnProperty.call(out, k)) out[k] = v;
  return out;
}

/**
 * The S3 API (path-style) as an encapsulated fastify plugin: one catch-all route, so more specific routes
 * registered by sibling plugins (health probes, admin, RPC) win. Bodies are never parsed by fastify:
 * object data streams from `request.raw`, XML bodies are read by the operations with a size cap.
 * The path is taken from the raw URL so keys reach the engine exactly as the client encoded them.
 */
export const s3Plugin: FastifyPluginAsync<S3PluginOptions> = async (app, opts) => {
  const now = opts.now ?? (() => new Date());
  const domains = normalizeDomains(opts.domains ?? []);

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));

  // A callback hook, not an async one: no promise per request on the hot path (fastify's hooks docs).
  app.addHook('onRequest', (_request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, newRequestId());
    reply.header(HOST_ID_HEADER, newHostId());
    reply.header('server', SERVER_NAME);
    done();
  });

  app.setErrorHandler((err, request, reply) => sendS3Error(request, reply, err));

  const handle = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const { rawPath, rawQuery } = splitUrl(request.raw.url ?? '/');
    try {
      const query = parseQuery(rawQuery);
      const headers = request.raw.headers;
      const vhostBucket = virtualHostBucket(headers.host, domains);
      // Routing sees the path-style form; the signature is checked over the path exactly as sent.
      const routedPath = vhostBucket === undefined ? rawPath : pathStylePath(vhostBucket, rawPath);
      const op = resolveOperation({ method: request.method, rawPath: routedPath, query, headers });
      const origin = firstHeader(headers.origin);
      // Set before authentication and authorization so that a browser can also read the error of a refused request.
      if (origin !== undefined && op.op !== 'PreflightCors' && 'bucket' in op) {
        await applyActualCors(opts.objectLayer, reply, op.bucket, origin, request.method);
      }
      // A CORS preflight carries no credentials by design (Fetch standard, CORS-preflight fetch): answered
      // from the bucket's CORS rules alone.
      // A POST form carries its signature in the form (policy), checked by the operation once the fields are read.
      const auth = op.op === 'PreflightCors' || op.op === 'PostObject'
        ? PREFLIGHT_AUTH
        : await verifyRequest(
          { method: request.method, rawPath, rawQuery, headers, rawHeaders: request.raw.rawHeaders },
          opts.lookupSecret,
          { now: now() },
        );
      const facts = {
        // fastify's request.ip: the socket peer, or the forwarded client when the app trusts its proxy.
        sourceIp: request.ip,
        secure: request.protocol === 'https',
        headers,
        query,
      };
      // Root is always allowed; users and service accounts as their policies and the bucket policy allow;
      // unsigned requests only as the bucket policy allows.
      const authorizeKey = op.op === 'PreflightCors' || op.op === 'PostObject'
        ? undefined
        : auth.anonymous
          ? await authorizeAnonymous(opts.objectLayer, op, facts)
          : await authorizeSigned(opts.objectLayer, opts.identities, auth.accessKey, op, facts);
      const ctx: S3Context = {
        layer: opts.objectLayer,
        region: opts.region,
        now,
        request,
        reply,
        log: request.log,
        query,
        headers,
        auth,
        owner: auth.anonymous ? ANONYMOUS_OWNER : { id: auth.accessKey, displayName: auth.accessKey },
        virtualHosted: vhostBucket !== undefined,
        ...(authorizeKey !== undefined ? { authorizeKey } : {}),
        lookupSecret: opts.lookupSecret,
        ...(opts.kms !== undefined ? { kms: opts.kms } : {}),
        sseCOverHttp: opts.allowSseCOverHttp === true,
        authorizeAs: async (accessKey, asOp) => {
          if (accessKey === undefined) await authorizeAnonymous(opts.objectLayer, asOp, facts);
          else await authorizeSigned(opts.objectLayer, opts.identities, accessKey, asOp, facts);
        },
      };
      return await dispatch(ctx, op);
    } catch (err) {
      return sendS3Error(request, reply, err);
    }
  };

  app.route({ method: [...METHODS], url: '/*', handler: handle });
};

// Plugin metadata read by fastify (`plugin-meta`, as fastify-plugin sets it): gives the plugin a name in
// errors and in `hasPlugin`, while keeping it encapsulated (no `skip-override`).
Object.assign(s3Plugin, { [Symbol.for('plugin-meta')]: { name: 'svc-s3', fastify: '5.x' } });
