/**
 * Sign-in with an access key and secret key (root, an IAM user or a service account: whoever can sign S3
 * requests), the current session, and sign-out. The secret is checked against IamStore.lookupSecret in constant
 * time; failures are rate-limited per client address and per access key.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ConsoleContext } from './console-context.js';
import { ConsoleError } from './console-error.js';
import { sameString } from './console-keys.js';
import { LoginLimiter } from './login-limiter.js';

/** Options of {@link sessionRoutes}. */
export interface SessionRoutesOptions {
  ctx: ConsoleContext;
  oidcEnabled: boolean;
  version: string;
  limiter?: LoginLimiter;
}

function field(body: unknown, name: string): string {
  const v = (body as Record<string, unknown> | null | undefined)?.[name];
  if (typeof v !== 'string' || v === '') throw new ConsoleError('InvalidRequest', `The ${name === 'accessKey' ? 'access key' : 'secret key'} is required.`);
  if (v.length > 256) throw new ConsoleError('InvalidRequest', `The ${name} is too long.`);
  return v;
}

/** See the module comment. */
export const sessionRoutes: FastifyPluginAsync<SessionRoutesOptions> = async (app, opts) => {
  const { ctx } = opts;
  const limiter = opts.limiter ?? new LoginLimiter();

  app.get('/svc/console/api/config', async () => ({ version: opts.version, oidc: opts.oidcEnabled }));

  app.get('/svc/console/api/session', async (request) => ctx.view(await ctx.actor(request)));

  app.post('/svc/console/api/login', async (request, reply) => {
    ctx.checkOrigin(request);
    // JSON only: a cross-site HTML form cannot send it without a CORS preflight, which this server never grants.
    if (!(request.headers['content-type'] ?? '').startsWith('application/json')) {
      throw new ConsoleError('InvalidRequest', 'Sign-in takes a JSON body { accessKey, secretKey }.');
    }
    const accessKey = field(request.body, 'accessKey');
    const secretKey = field(request.body, 'secretKey');
    const keys = [`ip:${request.ip}`, `ak:${accessKey}`];
    limiter.check(keys);
    const secret = await ctx.services.iam.lookupSecret(accessKey);
    if (secret === undefined || !sameString(secret, secretKey)) {
      limiter.fail(keys);
      throw new ConsoleError('InvalidCredentials', 'The access key or secret key is wrong, or the account is disabled.');
    }
    limiter.succeed(`ak:${accessKey}`);
    return ctx.startSession(request, reply, { sub: accessKey, kind: 'keys', fp: ctx.fingerprint(accessKey, secret) });
  });

  app.post('/svc/console/api/logout', async (request, reply) => {
    try {
      await ctx.mutator(request);
    } catch (err) {
      // A session that is already over is signed out anyway; a forged request is still refused.
      if (!(err instanceof ConsoleError) || err.code === 'CsrfRejected') throw err;
    }
    ctx.endSession(request, reply);
    return reply.code(204).send();
  });
};
