/** Public names of the internal RPC (cluster/rpc): node token, fastify plugin, client, wire errors. */
export { RPC_CLOCK_SKEW_MS, RPC_TOKEN_VALIDITY_MS, RpcTokenSource, makeRpcToken, verifyRpcToken } from './auth.js';
export type { RpcCredentials } from './auth.js';
export { RpcClient } from './client.js';
export type { RpcClientOptions, RpcUpload } from './client.js';
export { MAX_BATCH_CALLS, RPC_BATCH_PATH, RPC_PREFIX, RPC_PROTOCOL_VERSION, RPC_VERSION_HEADER, SHARD_READ, SHARD_WRITE, drivePath } from './protocol.js';
export type { DriveMethod } from './protocol.js';
export { RpcAuthError, RpcProtocolError, RpcUnavailableError, fromWireError, rpcFailureOf, toWireError } from './rpc-errors.js';
export type { RpcFailure, WireError } from './rpc-errors.js';
export { nodeAuthHook, sendWireError } from './node-auth.js';
export { rpcPlugin } from './server-plugin.js';
export type { RpcPluginOptions } from './server-plugin.js';
