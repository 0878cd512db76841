/** Public names of the cluster layer (STYLE.md convention 15: explicit list, no `export *`). */
export { parseTopology } from './topology.js';
export type { Endpoint, NodeIdentity, PoolTopology, Topology, TopologyOptions } from './topology.js';
export { formatReady, probeFormats, waitForFormatQuorum } from './bootstrap.js';
export type { FormatState, FormatWaitOptions } from './bootstrap.js';
export { RemoteDrive } from './remote-drive.js';
export type { RemoteDriveOptions } from './remote-drive.js';
export {
  RPC_PREFIX, RPC_PROTOCOL_VERSION, RpcAuthError, RpcClient, RpcProtocolError, RpcUnavailableError, makeRpcToken, rpcPlugin, verifyRpcToken,
} from './rpc/index.js';
export type { RpcClientOptions, RpcCredentials, RpcPluginOptions } from './rpc/index.js';
export {
  PEER_PREFIX, PeerMonitor, credentialsFingerprint, endpointsFingerprint, fetchPeerInfo, losesQuorumWithoutSelf, nodeQuorum,
  peerPlugin, setWriteQuorum, waitForPeers,
} from './peer/index.js';
export type { PeerAnswer, PeerInfo, PeerMonitorOptions, PeerPluginOptions, PeerWaitOptions, PeerWaitResult } from './peer/index.js';
export { IAM_RELOAD_PATH, IamReloadNotifier, iamReloadPlugin } from './peer/index.js';
export { BUCKET_CHANGED_PATH, PeerNotifier, bucketChangedPlugin } from './peer/index.js';
export type { BucketChangedPluginOptions, PeerNotifierOptions, PeerNotifyOutcome } from './peer/index.js';
export {
  SERVER_INFO_PATH, ServerReports, collectServerReport, drivePlacesOf, fetchServerReport, offlineServerReport, peerNetwork, serverInfoPlugin,
} from './peer/index.js';
export type {
  DrivePlace, DriveReport, LocalServerOptions, ReportDriveState, ServerInfoPluginOptions, ServerReport, ServerReportsOptions,
} from './peer/index.js';
export type { IamNotifyOutcome, IamReloadItem, IamReloadNotifierOptions, IamReloadPluginOptions } from './peer/index.js';
export {
  DEFAULT_LOCK_TIMING, DistLocker, LOCK_PREFIX, LockLostError, LockQuorumError, LockServer, createClusterLocking, lockPlugin,
  readLockQuorum, writeLockQuorum,
} from './lock/index.js';
export type {
  AcquireOptions, ClusterLocking, ClusterLockingOptions, LockLease, LockMode, LockPluginOptions, LockQuorumStatus, LockTiming,
} from './lock/index.js';
