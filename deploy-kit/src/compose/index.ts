export { detectCompose, composeArgv, runCompose, mustCompose, tailLines, defaultProjectName, isProjectName } from './tool.js';
export type { ComposeTool, ComposeProject } from './tool.js';
export {
  PUBLISHED_COMPOSE_FILE,
  parseHostBinding,
  publishOverride,
  prepareComposeFile,
  currentComposeFile,
  publishedBinding,
} from './publish.js';
export type { HostBinding, PublishOverride } from './publish.js';
export { createTlsProbe, daysLeft } from './probe.js';
export { ADMIN_INFO_PATH, createAdminInfoSource } from './admin-info.js';
export type { AdminInfoAnswer, AdminInfoRequest, AdminInfoSource } from './admin-info.js';
export { describeClusterFigures, formatBytes, summarizeClusterInfo } from './cluster-summary.js';
export type { ClusterSummary, ClusterSummaryResult } from './cluster-summary.js';
export type { ProxyProbe, ProbeRequest, ProbeResult, ServedCertificate } from './probe.js';
export { parseShowStat, readServerStates, SHOW_STAT_SCRIPT } from './haproxy-stat.js';
export type { ServerState } from './haproxy-stat.js';
export { DEFAULT_BASE_IMAGE, imageExists, productionClosure, buildServerImage } from './images.js';
export type { ServerImageBuild } from './images.js';
export { listContainers, failingContainer } from './services.js';
export type { ContainerState } from './services.js';
export { createStepPrinter } from './steps.js';
export type { StepPrinter } from './steps.js';
export { DEPLOYMENT_CA_FILE, projectNameFor, openDeployment, proxyAddress, readDeploymentCa, httpsUrl } from './deployment.js';
export type { Deployment, ProxyAddress } from './deployment.js';
export { REAL_WAITER, waitUntilReady, describeProbe } from './ready.js';
export type { ReadyCheck, Waiter } from './ready.js';
