/**
 * The console listener on :9001 (SPEC §1, §4): `GET /svc/console/health` answers 200 while the console serves,
 * `/` redirects to `/svc/console/` (REFERENCE.md §5: tools that expect MinIO open the console port's root).
 * The console UI itself comes with issue 6; until then `/svc/console/` serves a short page that says so.
 */
import type { FastifyPluginAsync } from 'fastify';

/** Options of the console plugin. */
export interface ConsolePluginOptions {
  version: string;
}

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc console</title></head>
<body><main><h1>svc console</h1><p>The server is running. The web console is not built into this version yet;
use <code>rc</code> or any S3 client against port 9000.</p></main></body></html>
`;

/** Routes of the console listener. */
export const consolePlugin: FastifyPluginAsync<ConsolePluginOptions> = async (app, opts) => {
  app.route({
    method: ['GET', 'HEAD'], url: '/svc/console/health',
    handler: async (_req, reply) => reply.header('cache-control', 'no-store').send({ status: 'ok', service: 'svc-console', version: opts.version }),
  });
  app.get('/', async (_req, reply) => reply.redirect('/svc/console/', 302));
  app.get('/svc/console', async (_req, reply) => reply.redirect('/svc/console/', 301));
  app.get('/svc/console/', async (_req, reply) => reply.type('text/html; charset=utf-8').send(PAGE));
};
