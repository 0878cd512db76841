/**
 * `GET /svc/peer/server-info` (issue 5): this node's own part of the cluster information report. Authenticated with
 * the node token like every peer route (403 and no data without it).
 */
import type { FastifyPluginAsync } from 'fastify';
import { nodeAuthHook } from '../rpc/index.js';
import type { RpcCredentials } from '../rpc/index.js';
import { PEER_PREFIX } from './peer-info.js';
import type { ServerReport } from './server-info.js';

/** Path of the server-info peer call. */
export const SERVER_INFO_PATH = `${PEER_PREFIX}/server-info`;

/** Options of {@link serverInfoPlugin}. */
export interface ServerInfoPluginOptions {
  credentials: RpcCredentials;
  /** This node's report (collectServerReport). */
  report: () => Promise<ServerReport>;
  now?: () => number;
}

/** Fastify plugin serving {@link SERVER_INFO_PATH}. */
export const serverInfoPlugin: FastifyPluginAsync<ServerInfoPluginOptions> = async (app, opts) => {
  app.addHook('onRequest', nodeAuthHook({ credentials: opts.credentials, now: opts.now ?? Date.now, requireProtocol: false }));
  app.get(SERVER_INFO_PATH, async (_request, reply) => reply.header('cache-control', 'no-store').send(await opts.report()));
};

Object.assign(serverInfoPlugin, { [Symbol.for('plugin-meta')]: { name: 'svc-peer-server-info', fastify: '5.x' } });
