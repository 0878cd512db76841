/**
 * Serves this node's LockServer to its peers under `/svc/peer/lock/` (issue 4 "peer calls … under /svc/peer/";
 * lock-protocol.ts has the wire format). Authenticated exactly like the storage RPC: without a valid node token
 * the answer is 403 with a JSON error, before the body is read and with no change to the lock table.
 */
import type { FastifyPluginAsync } from 'fastify';
import { nodeAuthHook, sendWireError } from '../rpc/index.js';
import type { RpcCredentials } from '../rpc/index.js';
import { LOCK_PREFIX, MAX_RESOURCE_LENGTH } from './lock-protocol.js';
import type { LockServer } from './lock-server.js';

/** Options of {@link lockPlugin}. */
export interface LockPluginOptions {
  /** Root credentials; peers must present a token derived from the same ones. */
  credentials: RpcCredentials;
  /** The lock table served. */
  server: LockServer;
  /** Clock for token expiry (tests). */
  now?: () => number;
}

const ALL_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;
const MAX_ID_LENGTH = 256;

const sendError = sendWireError;

function badRequest(message: string): Error {
  return Object.assign(new Error(message), { statusCode: 400 });
}

function text(v: unknown, what: string, max: number): string {
  if (typeof v !== 'string' || v === '' || v.length > max) throw badRequest(`${what} must be a non-empty string of at most ${max} characters`);
  return v;
}

function argsOf(body: unknown, count: number, op: string): unknown[] {
  const args = (body as { args?: unknown } | null)?.args;
  if (!Array.isArray(args) || args.length !== count) throw badRequest(`${op} needs {"args":[…]} with ${count} values`);
  return args;
}

/** Fastify plugin serving `POST /svc/peer/lock/<op>` for `opts.server`. */
export const lockPlugin: FastifyPluginAsync<LockPluginOptions> = async (app, opts) => {
  const now = opts.now ?? Date.now;
  const { server } = opts;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: 64 * 1024 }, (_req, body, done) => {
    try {
      done(null, JSON.parse((body as Buffer).toString('utf8')));
    } catch {
      done(badRequest('request body is not JSON'), undefined);
    }
  });

  app.addHook('onRequest', nodeAuthHook({ credentials: opts.credentials, now, requireProtocol: true }));

  app.setErrorHandler((err, _request, reply) => {
    const status = (err as { statusCode?: number }).statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      return sendError(reply, 400, { code: 'ERR_RPC_PROTOCOL', message: (err as Error).message });
    }
    return sendError(reply, 500, { code: 'ERR_RPC_PROTOCOL', message: 'lock server failure' });
  });

  const grant = (op: 'lock' | 'rlock') => async (request: { body: unknown }) => {
    const [resource, uid, owner] = argsOf(request.body, 3, op);
    const req = { resource: text(resource, 'resource', MAX_RESOURCE_LENGTH), uid: text(uid, 'uid', MAX_ID_LENGTH), owner: text(owner, 'owner', MAX_ID_LENGTH) };
    return { value: op === 'lock' ? server.lock(req) : server.rlock(req) };
  };
  const release = (op: 'unlock' | 'runlock' | 'refresh') => async (request: { body: unknown }) => {
    const [resource, uid] = argsOf(request.body, 2, op);
    const r = text(resource, 'resource', MAX_RESOURCE_LENGTH);
    const u = text(uid, 'uid', MAX_ID_LENGTH);
    return { value: op === 'unlock' ? server.unlock(r, u) : op === 'runlock' ? server.runlock(r, u) : server.refresh(r, u) };
  };

  app.post(`${LOCK_PREFIX}/lock`, grant('lock'));
  app.post(`${LOCK_PREFIX}/rlock`, grant('rlock'));
  app.post(`${LOCK_PREFIX}/unlock`, release('unlock'));
  app.post(`${LOCK_PREFIX}/runlock`, release('runlock'));
  app.post(`${LOCK_PREFIX}/refresh`, release('refresh'));
  app.post(`${LOCK_PREFIX}/force-unlock`, async (request) => {
    const [resource] = argsOf(request.body, 1, 'force-unlock');
    return { value: server.forceUnlock(text(resource, 'resource', MAX_RESOURCE_LENGTH)) };
  });
  app.post(`${LOCK_PREFIX}/health`, async () => ({ value: true }));

  // Anything else under the prefix: authenticated by the hook above, then refused.
  app.route({
    method: [...ALL_METHODS], url: `${LOCK_PREFIX}/*`,
    handler: async (_request, reply) => sendError(reply, 404, { code: 'ERR_RPC_PROTOCOL', message: 'unknown lock RPC route' }),
  });
};

Object.assign(lockPlugin, { [Symbol.for('plugin-meta')]: { name: 'svc-lock', fastify: '5.x' } });
