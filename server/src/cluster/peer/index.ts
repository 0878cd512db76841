/** Public names of the peer calls (cluster/peer): server info, startup handshake, reachability, node quorum. */
export { PEER_PREFIX, credentialsFingerprint, endpointsFingerprint } from './peer-info.js';
export type { PeerInfo } from './peer-info.js';
export { peerPlugin } from './peer-plugin.js';
export type { PeerPluginOptions } from './peer-plugin.js';
export { fetchPeerInfo } from './peer-client.js';
export type { PeerAnswer } from './peer-client.js';
export { waitForPeers } from './wait-for-peers.js';
export type { PeerWaitOptions, PeerWaitResult } from './wait-for-peers.js';
export { PeerMonitor } from './peer-monitor.js';
export type { PeerMonitorOptions } from './peer-monitor.js';
export { losesQuorumWithoutSelf, nodeQuorum, setWriteQuorum } from './quorum.js';
export { IAM_RELOAD_KINDS, IAM_RELOAD_PATH, MAX_RELOAD_ITEMS, iamReloadPlugin, parseReloadBody } from './iam-reload-plugin.js';
export type { IamReloadItem, IamReloadPluginOptions } from './iam-reload-plugin.js';
export { IamReloadNotifier } from './iam-notifier.js';
export type { IamNotifyOutcome, IamReloadNotifierOptions } from './iam-notifier.js';
