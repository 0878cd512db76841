/**
 * The one gate every node-to-node route passes (issue 4: "unauthenticated RPC gets 403 and no data"): a fastify
 * onRequest hook shared by the storage RPC, the lock server and the peer routes, so their auth cannot drift apart.
 */
import type { FastifyReply, onRequestAsyncHookHandler } from 'fastify';
import { verifyRpcToken } from './auth.js';
import type { RpcCredentials } from './auth.js';
import { RPC_PROTOCOL_VERSION, RPC_VERSION_HEADER } from './protocol.js';
import type { WireError } from './rpc-errors.js';

/** Sends a JSON wire error `{ error: { code, message } }`. */
export function sendWireError(reply: FastifyReply, status: number, error: WireError): FastifyReply {
  return reply.code(status).type('application/json').send({ error });
}

/**
 * Admits only requests carrying a valid node token (403 otherwise, before any body is read); with
 * `requireProtocol`, also the RPC protocol version header (400 otherwise).
 */
export function nodeAuthHook(opts: { credentials: RpcCredentials; now: () => number; requireProtocol: boolean }): onRequestAsyncHookHandler {
  return async (request, reply) => {
    if (!verifyRpcToken(request.headers.authorization, opts.credentials, opts.now())) {
      return sendWireError(reply, 403, { code: 'ERR_RPC_AUTH', message: 'a valid node token is required' });
    }
    if (opts.requireProtocol && request.headers[RPC_VERSION_HEADER] !== RPC_PROTOCOL_VERSION) {
      return sendWireError(reply, 400, { code: 'ERR_RPC_PROTOCOL', message: `RPC protocol ${RPC_PROTOCOL_VERSION} is required` });
    }
    return undefined;
  };
}
