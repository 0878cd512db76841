/**
 * The console listener on :9001 (SPEC §1, §4, issue 6): `GET /svc/console/health` answers 200 while the console
 * serves, `/` redirects to `/svc/console/` (REFERENCE.md §5: tools that expect MinIO open the console port's root),
 * the built front end is served under `/svc/console/`, its JSON API under `/svc/console/api/`, the live Status
 * pushes on the WebSocket `/svc/console/ws`, the OpenID Connect redirects under `/svc/console/oidc/`.
 */
import websocket from '@fastify/websocket';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { ConsoleContext, type ConsoleServices } from './console-context.js';
import { toConsoleError } from './console-error.js';
import { CALLBACK_PATH, LOGIN_PATH, oidcRoutes } from './oidc-login.js';
import { identityRoutes } from './routes-identity.js';
import { objectRoutes } from './routes-objects.js';
import { sessionRoutes } from './routes-session.js';
import { statusRoutes } from './routes-status.js';
import { loadAssets, type Asset } from './static-assets.js';

/** Options of the console plugin. */
export interface ConsolePluginOptions {
  version: string;
  /** The built front end (server/dist/console); when it has no index.html the page says how to build it. */
  assetsDir?: string;
  /** The console API's services; absent: only the health route, the redirect and the page are served. */
  services?: ConsoleServices;
}

/**
 * Content-Security-Policy of every answer (issue 6): scripts and styles only from this origin (no inline script),
 * never framed (clickjacking), no plugins, forms only to this origin.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'",
  "font-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
].join('; ');

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc console</title></head>
<body><main><h1>svc console</h1><p>The server is running, but the console's front end was not built into this copy.
Run <code>scripts/setup.sh</code> (it builds <code>server/console</code>), or use <code>rc</code> or any S3 client against port 9000.</p></main></body></html>
`;

function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: Asset): FastifyReply {
  reply.header('etag', asset.etag).header('content-type', asset.type)
    .header('cache-control', asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
  if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
  return reply.send(asset.body);
}

/** Console API routes that work without a session: what the sign-in page needs, and the OIDC round trip. */
const PUBLIC_API = new Set(['/svc/console/api/config', '/svc/console/api/login', '/svc/console/api/logout', LOGIN_PATH, CALLBACK_PATH]);

/** Routes of the console listener. */
export const consolePlugin: FastifyPluginAsync<ConsolePluginOptions> = async (app, opts) => {
  const assets = opts.assetsDir !== undefined ? loadAssets(opts.assetsDir) : new Map<string, Asset>();
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('content-security-policy', CONTENT_SECURITY_POLICY)
      .header('x-content-type-options', 'nosniff')
      .header('x-frame-options', 'DENY')
      .header('referrer-policy', 'same-origin')
      .header('cross-origin-opener-policy', 'same-origin');
    if (request.url.startsWith('/svc/console/api/') && !reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    return payload;
  });
  app.setErrorHandler((err, request, reply) => {
    const { error, internal } = toConsoleError(err);
    if (internal) request.log.error({ err }, 'console request failed');
    if (error.retryAfter !== undefined) reply.header('retry-after', String(error.retryAfter));
    // A body we did not read must not be parsed as the next request on a kept-alive connection.
    if (!request.raw.complete) reply.header('connection', 'close');
    return reply.code(error.status).type('application/json; charset=utf-8').send({ code: error.code, message: error.message });
  });
  app.setNotFoundHandler((request, reply) => reply.code(404).type('application/json; charset=utf-8')
    .send({ code: 'NotFound', message: `No such page: ${request.method} ${request.url.split('?')[0]}` }));

  app.route({
    method: ['GET', 'HEAD'], url: '/svc/console/health',
    handler: async (_req, reply) => reply.header('cache-control', 'no-store').send({ status: 'ok', service: 'svc-console', version: opts.version }),
  });
  app.get('/', async (_req, reply) => reply.redirect('/svc/console/', 302));
  app.get('/svc/console', async (_req, reply) => reply.redirect('/svc/console/', 301));
  const page = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const index = assets.get('index.html');
    if (index === undefined) return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(NOT_BUILT);
    return sendAsset(request, reply, index);
  };
  app.get('/svc/console/', page);
  app.get('/svc/console/*', async (request, reply) => {
    const rel = (request.params as { '*': string })['*'];
    const asset = assets.get(rel);
    if (asset !== undefined) return sendAsset(request, reply, asset);
    if (rel.startsWith('assets/') || rel.startsWith('api/')) {
      return reply.code(404).type('application/json; charset=utf-8').send({ code: 'NotFound', message: `No such file: ${rel}` });
    }
    // Any other path is a page of the single-page app.
    return page(request, reply);
  });

  const services = opts.services;
  if (services === undefined) return;
  const ctx = new ConsoleContext(services);
  // Authentication before anything else (issue 10: every non-public route requires it): a request without a valid
  // session gets 401 before its parameters are even looked at, so nothing about the API leaks to strangers.
  app.addHook('preHandler', async (request) => {
    const path = request.url.split('?')[0] ?? '';
    if (path.startsWith('/svc/console/api/') && !PUBLIC_API.has(path)) await ctx.actor(request);
  });
  await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  await app.register(sessionRoutes, { ctx, oidcEnabled: services.oidc !== undefined, version: opts.version });
  await app.register(statusRoutes, { ctx });
  await app.register(objectRoutes, { ctx });
  await app.register(identityRoutes, { ctx });
  if (services.oidc !== undefined) await app.register(oidcRoutes, { ctx, settings: services.oidc });
};
