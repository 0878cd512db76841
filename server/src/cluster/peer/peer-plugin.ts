/**
 * Peer calls served on the S3 port under `/svc/peer/` (SPEC §1 rule 2, issue 4 "Internal RPC"): authenticated
 * with the same node token as the storage RPC, so an unauthenticated or wrongly signed call gets 403 and no data.
 */
import type { FastifyPluginAsync } from 'fastify';
import { nodeAuthHook } from '../rpc/index.js';
import type { RpcCredentials } from '../rpc/index.js';
import { PEER_PREFIX } from './peer-info.js';
import type { PeerInfo } from './peer-info.js';

/** Options of {@link peerPlugin}. */
export interface PeerPluginOptions {
  credentials: RpcCredentials;
  /** This node's current info (deploymentId fills in once storage is open). */
  info: () => PeerInfo;
  now?: () => number;
}

const ALL_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

/** `GET /svc/peer/info`; anything else under the prefix is 403 without a token, 404 with one. */
export const peerPlugin: FastifyPluginAsync<PeerPluginOptions> = async (app, opts) => {
  const now = opts.now ?? Date.now;
  app.addHook('onRequest', nodeAuthHook({ credentials: opts.credentials, now, requireProtocol: false }));
  app.get(`${PEER_PREFIX}/info`, async (_request, reply) => reply.header('cache-control', 'no-store').send(opts.info()));
  app.route({
    method: [...ALL_METHODS], url: `${PEER_PREFIX}/*`,
    handler: async (_request, reply) => reply.code(404).send({ error: { code: 'ERR_RPC_PROTOCOL', message: 'unknown peer route' } }),
  });
};

Object.assign(peerPlugin, { [Symbol.for('plugin-meta')]: { name: 'svc-peer', fastify: '5.x' } });
