/**
 * What every JSON peer notification route shares (iam-reload-plugin.ts, bucket-changed-plugin.ts): a JSON body
 * parser (an empty body is undefined), the node-token check (403 and nothing done without it), and wire errors
 * (400 for a malformed call, 503 when the node cannot act on it).
 */
import type { FastifyInstance } from 'fastify';
import { nodeAuthHook, sendWireError } from '../rpc/index.js';
import type { RpcCredentials } from '../rpc/index.js';

/** A 400 error for a malformed notification. */
export function badRequest(message: string): Error {
  return Object.assign(new Error(message), { statusCode: 400 });
}

/** Sets up `app` (an encapsulated plugin context) for JSON peer notifications; `what` names the action in 503s. */
export function setupPeerJson(app: FastifyInstance, opts: { credentials: RpcCredentials; now?: () => number; what: string; bodyLimit: number }): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: opts.bodyLimit }, (_req, body, done) => {
    const text = (body as Buffer).toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    try {
      done(null, JSON.parse(text));
    } catch {
      done(badRequest('request body is not JSON'), undefined);
    }
  });
  app.addHook('onRequest', nodeAuthHook({ credentials: opts.credentials, now: opts.now ?? Date.now, requireProtocol: false }));
  app.setErrorHandler((err, _request, reply) => {
    const { statusCode: status, message } = err as { statusCode?: number; message?: string };
    if (status !== undefined && status >= 400 && status < 500) return sendWireError(reply, 400, { code: 'ERR_RPC_PROTOCOL', message: message ?? 'bad request' });
    return sendWireError(reply, 503, { code: 'ERR_RPC_UNAVAILABLE', message: `${opts.what} failed: ${message ?? 'unknown error'}` });
  });
}
